import { newEvent } from '@crm/shared';
import type { ProviderCallback } from '../providers/provider';
import type { ChatInstanceRecord } from '../repository/chat-instance.repository';
import { applyRecipientStatus } from './broadcasts/recipient-status';
import type { MessagingDeps } from './deps';
import { providerTime } from './provider-time';
import { messageEventData } from './views';

/** What a callback came to: `retry` asks the provider to send it again later (a callback about a message not yet stored). */
export type CallbackOutcome = 'applied' | 'ignored' | 'retry';

type Callback<K extends ProviderCallback['kind']> = Extract<ProviderCallback, { kind: K }>;

const STATUS_EVENTS = { delivered: 'message.delivered', read: 'message.read', failed: 'message.failed' } as const;

/**
 * A delivery status. `sent` changes nothing (message.sent was raised when the send was accepted); later statuses
 * raise their platform kinds — `failed` (a refused delivery, e.g. 131042 without billing) raises message.failed
 * with the provider's error. A status for a send this service has not stored yet is answered `retry`.
 */
export async function applyStatus(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  callback: Callback<'status'>,
): Promise<CallbackOutcome> {
  // Every message is stored once its provider accepted it, as `sent` (or `received`): a `sent` status moves no
  // message, no broadcast recipient and raises nothing, so it needs no read — also when it arrives before its send
  // is stored, which under load it often does (it was read, answered 425, and sent again by the provider).
  if (callback.status === 'sent') return 'applied';
  const message = await deps.messages.getForStatus(instance.id, callback.external_id);
  if (!message) return 'retry';
  const at = deps.now();
  const written = await deps.messages.applyStatus(message, callback.status, callback.error, at, (next) =>
    callback.status === 'sent' ? [] : [newEvent(instance.org_id, STATUS_EVENTS[callback.status], messageEventData(next), at)],
  );
  if (written) await deps.conversations.touchUpdatedAt(message.org_id, message.conversation_id, at);
  await applyRecipientStatus(deps, message, callback.status, callback.error);
  return 'applied';
}

export async function applyEdit(deps: MessagingDeps, instance: ChatInstanceRecord, callback: Callback<'edit'>): Promise<CallbackOutcome> {
  const message = await deps.messages.getByExternalId(instance.id, callback.external_id);
  if (!message) return 'retry';
  // The provider's time, not the receipt time: a retried edit callback carries the same time and changes nothing.
  const at = providerTime(callback.at, deps.now());
  const written = await deps.messages.applyEdit(message.id, callback.text, at, (next) => [
    newEvent(instance.org_id, 'message.edited', { ...messageEventData(next), previous: { content: message.content } }, at),
  ]);
  if (written) await deps.conversations.touchUpdatedAt(message.org_id, message.conversation_id, deps.now());
  return 'applied';
}

/**
 * The contact deleted a message for everyone: message.deleted carries it as it was, and from then on it is gone
 * from the reads (GET /v1/messages/{id} answers 404, the conversation's list leaves it out) and its text is not
 * kept. A repeated callback changes nothing.
 */
export async function applyDelete(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  callback: Callback<'delete'>,
): Promise<CallbackOutcome> {
  const message = await deps.messages.getByExternalId(instance.id, callback.external_id);
  if (!message) return 'retry';
  if (message.deleted_at) return 'applied';
  const at = deps.now();
  const written = await deps.messages.applyDelete(message, at, [
    newEvent(instance.org_id, 'message.deleted', messageEventData(message), at),
  ]);
  if (written) await deps.conversations.touchUpdatedAt(message.org_id, message.conversation_id, at);
  return 'applied';
}

/** A reaction of the contact to a message (an empty emoji: the reaction was removed), raised once per provider key. */
export async function applyReaction(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  callback: Callback<'reaction'>,
): Promise<CallbackOutcome> {
  const message = await deps.messages.getByExternalId(instance.id, callback.external_id);
  if (!message) return 'retry';
  if (message.deleted_at) return 'ignored';
  const reactedAt = providerTime(callback.at, deps.now());
  const key = callback.key || `${callback.from}:${callback.emoji}:${reactedAt.getTime()}`;
  const data = { ...messageEventData(message), reaction: { emoji: callback.emoji, reacted_at: reactedAt.toISOString() } };
  const written = await deps.messages.applyReaction(message, key, deps.now(), [
    newEvent(instance.org_id, 'message.reaction.added', data, deps.now()),
  ]);
  if (written) await deps.conversations.touchUpdatedAt(message.org_id, message.conversation_id, deps.now());
  return 'applied';
}
