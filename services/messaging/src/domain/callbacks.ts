import { AppError, newId, newEvent, notFound, writeRevision } from '@crm/shared';
import type { Channel, InstanceKind } from '@crm/shared/schemas';
import { applyMarketingKeyword, applyRecipientStatus } from './broadcasts/recipient-status';
import type { ProviderCallback } from '../providers/provider';
import type { ChatInstanceRecord, InstanceStatus } from '../repository/chat-instance.repository';
import type { MessageRecord } from '../repository/message.repository';
import type { MessagingDeps } from './deps';
import { storeMessage } from './store-message';
import { previewOf, viewChatInstance, viewMessage } from './views';

/** What a callback came to: `retry` asks the provider to send it again later (a status for a send not yet stored). */
export type CallbackOutcome = 'applied' | 'ignored' | 'retry';

const CHANNEL_OF: Record<InstanceKind, Channel> = { qrcode: 'chatapp', official: 'chatapp', photoapp: 'photoapp', socialmsg: 'socialmsg' };

/** Applies one provider callback. Every branch is idempotent: providers retry callbacks until answered 2xx. */
export async function applyCallback(deps: MessagingDeps, kind: InstanceKind, callback: ProviderCallback): Promise<CallbackOutcome> {
  const instance = await deps.instances.getByProviderRef(kind, callback.ref);
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
    case 'connection':
      return applyConnection(deps, instance, callback.connected);
    case 'template_status':
      await deps.templates.setStatus(instance.id, callback.name, callback.language, callback.status, deps.now());
      return 'applied';
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
  if (await deps.messages.getByExternalId(instance.id, callback.external_id)) return 'applied';
  const channel = CHANNEL_OF[instance.kind];
  const providerAt = providerTime(callback.at, deps.now());
  const contact = await resolveContact(deps, instance, channel, callback.from, callback.from_name);
  // Before the message is stored: a retried callback (after a crash here) returns early once it is stored.
  await applyMarketingKeyword(deps, instance.org_id, contact.id, callback.text);
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
  await storeMessage(
    deps,
    {
      org_id: instance.org_id,
      contact,
      channel,
      instance: { id: instance.id, name: instance.name, kind: instance.kind },
      at: record.created_at,
      preview: previewOf(record),
      inbound: true,
      window_expires_at: instance.kind === 'official' ? new Date(providerAt.getTime() + deps.settings.windowMs) : null,
      now: deps.now(),
    },
    record,
    (view) => [newEvent(instance.org_id, 'message.received', { object: view }, record.created_at)],
  );
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
  await storeMessage(
    deps,
    {
      org_id: instance.org_id,
      contact,
      channel,
      instance: { id: instance.id, name: instance.name, kind: instance.kind },
      at: record.created_at,
      preview: previewOf(record),
      inbound: false,
      window_expires_at: null,
      now: deps.now(),
    },
    record,
    (view) => [newEvent(instance.org_id, 'message.sent', { object: view }, record.created_at)],
  );
  return 'applied';
}

const STATUS_EVENTS = { delivered: 'message.delivered', read: 'message.read', failed: 'message.failed' } as const;

/**
 * A delivery status. `sent` raises nothing (message.sent was raised when the send was accepted); later statuses
 * raise their platform kinds. A status for a send this service has not stored yet is answered `retry`.
 */
async function applyStatus(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  callback: Extract<ProviderCallback, { kind: 'status' }>,
): Promise<CallbackOutcome> {
  const message = await deps.messages.getByExternalId(instance.id, callback.external_id);
  if (!message) return 'retry';
  const at = deps.now();
  const written = await deps.messages.applyStatus(message, callback.status, callback.error, at, (next) =>
    callback.status === 'sent' ? [] : [newEvent(instance.org_id, STATUS_EVENTS[callback.status], { object: viewMessage(next) }, at)],
  );
  if (written) await deps.conversations.touchUpdatedAt(message.org_id, message.conversation_id, at);
  await applyRecipientStatus(deps, message, callback.status, callback.error);
  return 'applied';
}

async function applyEdit(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  callback: Extract<ProviderCallback, { kind: 'edit' }>,
): Promise<CallbackOutcome> {
  const message = await deps.messages.getByExternalId(instance.id, callback.external_id);
  if (!message) return 'retry';
  // The provider's time, not the receipt time: a retried edit callback carries the same time and changes nothing.
  const at = providerTime(callback.at, deps.now());
  const written = await deps.messages.applyEdit(message.id, callback.text, at, (next) => [
    newEvent(instance.org_id, 'message.edited', { object: viewMessage(next), previous: { content: message.content } }, at),
  ]);
  if (written) await deps.conversations.touchUpdatedAt(message.org_id, message.conversation_id, deps.now());
  return 'applied';
}

/** The number's status with its event; a repeated provider callback changes nothing and raises nothing. */
async function applyConnection(deps: MessagingDeps, instance: ChatInstanceRecord, connected: boolean): Promise<CallbackOutcome> {
  const status: InstanceStatus = connected ? 'connected' : 'disconnected';
  await writeRevision({
    read: async () => {
      const current = await deps.instances.getById(instance.org_id, instance.id);
      if (!current) throw notFound('chat instance');
      return current;
    },
    plan: (current) => {
      if (current.status === status) return null;
      const at = deps.now();
      return {
        set: { status, updated_at: at },
        events: (view) => [newEvent(instance.org_id, connected ? 'channel.connected' : 'channel.disconnected', { object: view }, at)],
      };
    },
    view: viewChatInstance,
    write: (current, set, events) => deps.instances.updateAtRevision(instance.org_id, instance.id, current.rev, set, events),
  });
  return 'applied';
}

/** The CRM contact at this channel address, created there (source = the channel) exactly once. */
async function resolveContact(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  channel: Channel,
  from: string,
  name: string | null,
): Promise<{ id: string; name: string }> {
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
  return { id: contact.id, name: contact.name };
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

/** The provider's event time (whole seconds), or the receipt time when the callback carries none. */
function providerTime(date: Date, now: Date): Date {
  return Number.isFinite(date.getTime()) && date.getTime() > 0 ? date : now;
}

/** A callback that arrives later than this is a delayed or backfilled one: it keeps the provider's time. */
const LIVE_LAG_MS = 60_000;

/**
 * When a message is shown and ordered: the receipt time for a live callback (provider timestamps have whole
 * seconds, and mixing them with millisecond times would reorder a conversation), the provider's time for a
 * delayed one. The official window is always measured from the provider's time.
 */
function displayTime(providerAt: Date, now: Date): Date {
  const lag = now.getTime() - providerAt.getTime();
  return lag >= -LIVE_LAG_MS && lag < LIVE_LAG_MS ? now : providerAt;
}
