import type { ContactFields } from '@crm/proto/gen/crm/v1/contacts';
import { AppError, invalidReference, newId, nullIfNotFound } from '@crm/shared';
import type { ClientSession } from 'mongoose';
import { parseOrThrow, sendMessageBody, type Channel, type SendMessageBody } from '@crm/shared/schemas';
import type { ChatInstanceRecord } from '../repository/chat-instance.repository';
import type { MessageRecord } from '../repository/message.repository';
import type { TemplateRecord } from '../repository/template.repository';
import type { MessagingDeps } from './deps';
import { chooseInstance } from './send-instance';
import { checkOfficialSend, type OfficialPlan } from './send-official';
import { storeMessage } from './store-message';
import { previewOf, viewMessage, type MessageView } from './views';

/**
 * #53. Checks everything that would certainly fail (contact, channel identifier, number, window, template,
 * billing), hands the message to the provider, and stores it as `sent` with its `message.sent` event. A provider
 * refusal stores nothing: the message never left. Delivery is reported later by status callbacks.
 */
export async function sendMessage(
  deps: MessagingDeps,
  orgId: string,
  senderKeyId: string,
  rawBody: unknown,
  internal: { sender?: MessageRecord['sender']; messageId?: string; agentRunId?: string; firstSend?: boolean } = {},
): Promise<MessageView> {
  const body = parseOrThrow(sendMessageBody, rawBody);
  // An internal caller's repeated send (after a crash) finds its message: the contact got it once. A first send
  // has nothing to find (and a concurrent repeat still meets it on the provider's key and the message's id below).
  const already = internal.messageId && !internal.firstSend ? await deps.messages.getStored(orgId, internal.messageId) : null;
  if (already) return viewMessage(already);
  const contact = await requireContact(deps, orgId, body.contact_id);
  const sender = internal.sender ?? { type: 'api', id: senderKeyId || null, name: null };
  const origin = internal.agentRunId ? { agent_run_id: internal.agentRunId } : undefined;
  const stored = await deliver(deps, { orgId, contact, body, sender, messageId: internal.messageId, origin });
  if (stored) return stored;
  const repeated = internal.messageId ? await deps.messages.getStored(orgId, internal.messageId) : null;
  if (repeated) return viewMessage(repeated);
  throw new AppError('INTERNAL_ERROR', 'The provider returned a message id that is already stored.');
}

/** The fields of a contact a send needs: its name and its addresses at the channels. */
export type ContactAddress = Pick<ContactFields, 'id' | 'name' | 'phone' | 'chatapp_jid' | 'photoapp_username' | 'socialmsg_psid'>;

export interface Delivery {
  orgId: string;
  contact: ContactAddress;
  body: SendMessageBody;
  sender: MessageRecord['sender'];
  /** Chosen by a caller that may repeat this send (a broadcast after a crash): the provider accepts one key once. */
  messageId?: string;
  /** What sent it (a broadcast, an AI agent's run): every event about the message carries it. */
  origin?: Pick<MessageRecord, 'broadcast_id' | 'agent_run_id'>;
  /** Writes that belong to this send, made in the transaction that stores the message. */
  alsoInTransaction?: (session: ClientSession) => Promise<void>;
  /** The number and approved template, when the caller resolved them for many sends (a broadcast lane). */
  route?: SendRoute;
}

/** What a sender of many messages from one number resolves once: the number, and its approved template if any. */
export interface SendRoute {
  instance: ChatInstanceRecord;
  template: TemplateRecord | null;
}

/**
 * The send path every outbound message takes (#53, broadcasts): the number, the channel address, the connection,
 * an official number's rules, the provider call, and the stored message with its `message.sent` event. Null when
 * this message id (or the provider's id) is already stored: a repeated send that the provider deduplicated.
 */
export async function deliver(deps: MessagingDeps, delivery: Delivery): Promise<MessageView | null> {
  const { orgId, contact, body } = delivery;
  recipientOf(contact, body.channel, null);
  const instance = delivery.route?.instance ?? (await chooseInstance(deps, orgId, contact.id, body));
  const to = recipientOf(contact, body.channel, instance);
  if (instance.status !== 'connected')
    throw new AppError(
      'CHANNEL_DISCONNECTED',
      `${instance.kind === 'qrcode' || instance.kind === 'official' ? 'The number' : 'The page'} ${instance.name} is ${instance.status}; no message leaves until it reconnects.`,
      { instance_id: instance.id, status: instance.status },
    );

  // Template fields on a QR-code number (and on pages) are silently ignored (spec §4); content is then required.
  const official: OfficialPlan | null =
    instance.kind === 'official' ? await checkOfficialSend(deps, orgId, contact.id, instance, body, delivery.route?.template) : null;
  if (!official?.template && !body.content && body.type === 'text') {
    throw new AppError('VALIDATION_ERROR', 'Invalid request: content: is required for a text message on this number.', {
      fields: [{ field: 'content', issue: 'is required for a text message on this number' }],
    });
  }

  const template = official?.template ?? null;
  const id = delivery.messageId ?? newId('message');
  const sent = await deps.providers[instance.kind].send({
    instance,
    to,
    type: body.type,
    content: template ? null : (body.content ?? null),
    media_url: template ? null : (body.media_url ?? null),
    template: template ? { name: template.name, language: template.language, components: body.template_components ?? [] } : null,
    idempotency_key: id,
  });

  const now = deps.now();
  const record: MessageRecord = {
    id,
    org_id: orgId,
    conversation_id: '',
    contact_id: contact.id,
    channel: body.channel,
    instance_id: instance.id,
    direction: 'outbound',
    type: template ? 'template' : body.type,
    content: template ? null : (body.content ?? null),
    media: !template && body.media_url ? { url: body.media_url, mime_type: null, file_name: null } : null,
    template: template ? { name: template.name, language: template.language } : null,
    status: 'sent',
    sender: delivery.sender,
    external_id: sent.external_id,
    error: null,
    edited_at: null,
    broadcast_id: delivery.origin?.broadcast_id ?? null,
    agent_run_id: delivery.origin?.agent_run_id ?? null,
    created_at: now,
    updated_at: now,
  };
  const stored = await storeMessage(
    deps,
    {
      org_id: orgId,
      contact: { id: contact.id, name: contact.name },
      channel: body.channel,
      instance: { id: instance.id, name: instance.name, kind: instance.kind },
      at: now,
      preview: previewOf(record),
      inbound: false,
      window_expires_at: null,
      now,
      // An agent's reply marks the conversation as answered by it (Conversation.ai_agent).
      ai_agent:
        delivery.sender.type === 'ai_agent' && delivery.sender.id
          ? { id: delivery.sender.id, name: delivery.sender.name ?? '' }
          : undefined,
    },
    record,
    'message.sent',
    delivery.alsoInTransaction,
  );
  return stored?.message ?? null;
}

/** The contact's own fields (GetContactFields): a send needs its addresses, not what links to it in the CRM. */
async function requireContact(deps: MessagingDeps, orgId: string, contactId: string): Promise<ContactFields> {
  const contact = await nullIfNotFound(deps.crm.contacts.getContactFields({ org_id: orgId, id: contactId }));
  if (!contact) throw invalidReference('contact_id', contactId);
  return contact;
}

/** The contact's address at the channel; CONTACT_CHANNEL_UNAVAILABLE when it has none. */
function recipientOf(contact: ContactAddress, channel: Channel, instance: ChatInstanceRecord | null): string {
  const digits = (contact.chatapp_jid?.split('@')[0] ?? contact.phone ?? '').replace(/\D/g, '');
  const address: Record<Channel, string> = {
    chatapp: instance?.kind === 'official' ? digits : (contact.chatapp_jid ?? (digits ? `${digits}@c.chatapp` : '')),
    photoapp: contact.photoapp_username ?? '',
    socialmsg: contact.socialmsg_psid ?? '',
  };
  const to = address[channel];
  if (!to) {
    const field = { chatapp: 'chatapp_jid or phone', photoapp: 'photoapp_username', socialmsg: 'socialmsg_psid' }[channel];
    throw new AppError('CONTACT_CHANNEL_UNAVAILABLE', `The contact has no ${field}, so it cannot be reached on ${channel}.`, {
      channel,
      contact_id: contact.id,
    });
  }
  return to;
}

export type { SendMessageBody };
