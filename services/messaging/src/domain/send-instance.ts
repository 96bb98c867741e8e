import { AppError, invalidReference } from '@crm/shared';
import { CHATAPP_KINDS, type SendMessageBody } from '@crm/shared/schemas';
import type { ChatInstanceRecord } from '../repository/chat-instance.repository';
import type { MessagingDeps } from './deps';

/**
 * The number or page a send leaves from (#53): chatapp uses `instance_id`, else the number of `conversation_id`,
 * else the number of the contact's latest chatapp conversation, else the default number. The other channels use
 * the organization's page of that channel.
 */
export async function chooseInstance(
  deps: MessagingDeps,
  orgId: string,
  contactId: string,
  body: SendMessageBody,
): Promise<ChatInstanceRecord> {
  let instanceId = body.instance_id;
  if (body.conversation_id) {
    const conversation = await deps.conversations.getById(orgId, body.conversation_id);
    if (!conversation || conversation.contact_id !== contactId || conversation.channel !== body.channel) {
      throw new AppError('INVALID_REFERENCE', 'conversation_id does not belong to this contact and channel.', {
        field: 'conversation_id',
        id: body.conversation_id,
      });
    }
    if (instanceId && instanceId !== conversation.instance_id) {
      throw new AppError('INVALID_REFERENCE', 'instance_id is not the number of conversation_id.', {
        field: 'instance_id',
        id: instanceId,
      });
    }
    instanceId = conversation.instance_id;
  }
  if (body.channel !== 'chatapp') {
    if (body.instance_id)
      throw new AppError('VALIDATION_ERROR', 'Invalid request: instance_id: is accepted only on the chatapp channel.', {
        fields: [{ field: 'instance_id', issue: 'is accepted only on the chatapp channel' }],
      });
    const page = instanceId ? await deps.instances.getById(orgId, instanceId) : await deps.instances.findFirstOfKind(orgId, body.channel);
    if (!page)
      throw new AppError('CHANNEL_DISCONNECTED', `The organization has no ${body.channel} page connected.`, { channel: body.channel });
    return page;
  }
  if (instanceId) {
    const instance = await deps.instances.getById(orgId, instanceId);
    if (!instance || !(CHATAPP_KINDS as readonly string[]).includes(instance.kind)) throw invalidReference('instance_id', instanceId);
    return instance;
  }
  const latest = await deps.conversations.latestForContact(orgId, contactId, 'chatapp');
  const instance =
    (latest && (await deps.instances.getById(orgId, latest.instance_id))) ?? (await deps.instances.findDefault(orgId, [...CHATAPP_KINDS]));
  if (!instance)
    throw new AppError('CHANNEL_DISCONNECTED', 'The organization has no chatapp number; an operator must connect one.', {
      channel: 'chatapp',
    });
  return instance;
}
