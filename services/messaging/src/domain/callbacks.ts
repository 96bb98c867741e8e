import { AppError, newId } from '@crm/shared';
import type { Channel, InstanceKind } from '@crm/shared/schemas';
import { applyMarketingKeyword, isMarketingKeyword } from './opt-outs';
import type { ProviderCallback } from '../providers/provider';
import type { ChatInstanceRecord } from '../repository/chat-instance.repository';
import type { ConversationTouch } from '../repository/conversation.repository';
import type { MessageRecord } from '../repository/message.repository';
import { applyConnection, applyQrCode, applyTemplateStatus } from './channel-callbacks';
import type { MessagingDeps } from './deps';
import { applyDelete, applyEdit, applyReaction, applyStatus, type CallbackOutcome } from './message-callbacks';
import { displayTime, providerTime } from './provider-time';
import { storeMessage } from './store-message';
import { previewOf } from './views';

export type { CallbackOutcome } from './message-callbacks';

const CHANNEL_OF: Record<InstanceKind, Channel> = { qrcode: 'chatapp', official: 'chatapp', photoapp: 'photoapp', socialmsg: 'socialmsg' };

/** Applies one provider callback. Every branch is idempotent: providers retry callbacks until answered 2xx. */
export async function applyCallback(deps: MessagingDeps, kind: InstanceKind, callback: ProviderCallback): Promise<CallbackOutcome> {
  // Connection, QR-code and template callbacks change the number: they read it as stored.
  const instance =
    callback.kind === 'status' || callback.kind === 'message'
      ? await deps.instances.getByProviderRefRecent(kind, callback.ref)
      : await deps.instances.getByProviderRef(kind, callback.ref);
  if (!instance) {
    deps.logger.warn({ kind, ref: callback.ref }, 'callback for an unknown number or page; ignored');
    return 'ignored';
  }
  switch (callback.kind) {
    case 'message':
      return receiveMessage(deps, instance, callback);
    case 'outgoing':
      return recordPhoneSend(deps, instance, callback);
    case 'status':
      return applyStatus(deps, instance, callback);
    case 'edit':
      return applyEdit(deps, instance, callback);
    case 'delete':
      return applyDelete(deps, instance, callback);
    case 'reaction':
      return applyReaction(deps, instance, callback);
    case 'connection':
      return applyConnection(deps, instance, callback.connected);
    case 'qr':
      return applyQrCode(deps, instance, callback);
    case 'template_status':
      return applyTemplateStatus(deps, instance, callback);
  }
}

/**
 * An inbound message: the sender becomes (or is found as) a CRM contact, the conversation is opened or reopened,
 * the official window moves to 24 h after this message, and `message.received` is raised, all in one transaction.
 * The provider's message id on this number is unique, so a retried callback stores and counts nothing twice.
 */
async function receiveMessage(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  callback: Extract<ProviderCallback, { kind: 'message' }>,
): Promise<CallbackOutcome> {
  if (!callback.external_id) return 'ignored';
  // A repeated callback stores nothing twice without this read (the provider id is unique on the number and aborts
  // the message's transaction), and resolving its sender again changes nothing. A keyword's consent change is the
  // one step a late repeat must not apply again (a STOP repeated after the contact's START): only then read first.
  if (isMarketingKeyword(callback.text) && (await deps.messages.getByExternalId(instance.id, callback.external_id))) return 'applied';
  const channel = CHANNEL_OF[instance.kind];
  const providerAt = providerTime(callback.at, deps.now());
  const contact = await resolveContact(deps, instance, channel, callback.from, callback.from_name);
  // Before the message is stored: a repeated keyword callback (after a crash here) returns early once it is stored.
  await applyMarketingKeyword(deps, instance.org_id, { ...contact, channel }, callback.text);
  const windowEnd = instance.kind === 'official' ? new Date(providerAt.getTime() + deps.settings.windowMs) : null;
  const record = newMessage(instance, channel, contact.id, {
    direction: 'inbound',
    type: callback.type,
    content: callback.text,
    media: callback.media_url ? { url: callback.media_url, mime_type: null, file_name: null } : null,
    status: 'received',
    sender: { type: 'contact', id: contact.id, name: contact.name },
    external_id: callback.external_id,
    at: displayTime(providerAt, deps.now()),
    now: deps.now(),
  });
  await storeCallbackMessage(deps, instance, contact, record, windowEnd);
  if (windowEnd) deps.windowArmed(windowEnd);
  return 'applied';
}

/** A message typed on the phone of a QR-code number: a `message.sent` whose sender is the device. */
async function recordPhoneSend(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  callback: Extract<ProviderCallback, { kind: 'outgoing' }>,
): Promise<CallbackOutcome> {
  if (!callback.external_id || (await deps.messages.getByExternalId(instance.id, callback.external_id))) return 'applied';
  const channel = CHANNEL_OF[instance.kind];
  const contact = await resolveContact(deps, instance, channel, callback.to, null);
  const record = newMessage(instance, channel, contact.id, {
    direction: 'outbound',
    type: 'text',
    content: callback.text,
    media: null,
    status: 'sent',
    sender: { type: 'device', id: null, name: null },
    external_id: callback.external_id,
    at: displayTime(providerTime(callback.at, deps.now()), deps.now()),
    now: deps.now(),
  });
  await storeCallbackMessage(deps, instance, contact, record, null);
  return 'applied';
}

/** The CRM contact at this channel address, created there (source = the channel) exactly once. */
async function resolveContact(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  channel: Channel,
  from: string,
  name: string | null,
): Promise<{ id: string; name: string; created: boolean }> {
  let identifier = from;
  let phone: string | undefined;
  if (channel === 'chatapp') {
    const digits = from.split('@')[0]?.replace(/\D/g, '') ?? '';
    if (!digits) throw new AppError('VALIDATION_ERROR', 'The callback has no sender number.');
    identifier = `${digits}@c.chatapp`;
    phone = `+${digits}`;
  }
  const contact = await deps.crm.contacts.resolveChannelContact({
    org_id: instance.org_id,
    channel,
    identifier,
    name: name ?? undefined,
    phone,
  });
  return { id: contact.id, name: contact.name, created: contact.created === true };
}

/** A message a callback told of, in its conversation: `message.received` from the contact, else `message.sent`. */
async function storeCallbackMessage(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  contact: { id: string; name: string; created: boolean },
  record: MessageRecord,
  windowExpiresAt: Date | null,
): Promise<void> {
  const inbound = record.direction === 'inbound';
  const touch: ConversationTouch = {
    org_id: instance.org_id,
    contact: { id: contact.id, name: contact.name },
    new_contact: contact.created,
    channel: record.channel,
    instance: { id: instance.id, name: instance.name, kind: instance.kind },
    at: record.created_at,
    preview: previewOf(record),
    inbound,
    window_expires_at: windowExpiresAt,
    now: deps.now(),
  };
  await storeMessage(deps, touch, record, inbound ? 'message.received' : 'message.sent');
}

function newMessage(
  instance: ChatInstanceRecord,
  channel: Channel,
  contactId: string,
  fields: Pick<MessageRecord, 'direction' | 'type' | 'content' | 'media' | 'status' | 'sender' | 'external_id'> & { at: Date; now: Date },
): MessageRecord {
  const { at, now, ...rest } = fields;
  return {
    id: newId('message'),
    org_id: instance.org_id,
    conversation_id: '',
    contact_id: contactId,
    channel,
    instance_id: instance.id,
    template: null,
    error: null,
    edited_at: null,
    created_at: at,
    updated_at: now,
    ...rest,
  };
}
