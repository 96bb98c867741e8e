import { eachEventByKey, EventConsumer, type ConsumedEvent, type EventBus, type Logger } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';

/** Contacts whose counts one batch writes at once. */
const COUNTS_AT_ONCE = 64;

/**
 * Keeps each contact's `messages_count` and `last_message_at` from the messaging service's events (a message
 * received or sent counts as "a message exchanged"). Each event is counted once: the event id is recorded in the
 * same conditional update (see ContactRepository.countMessage), so a redelivered batch changes nothing. The events
 * of a batch are counted at once, one contact's after another (the counts commute; the database gets them in a few
 * commands instead of one each: two per AI agent reply).
 */
export function messageConsumer(
  deps: CrmDeps,
  bus: EventBus,
  options: { groupId: string; topic: string; logger: Logger },
): EventConsumer<'message.received' | 'message.sent'> {
  const count = async ({ event }: ConsumedEvent<'message.received' | 'message.sent'>) => {
    const message = event.data.object;
    await deps.contacts.countMessage(event.org_id, message.contact_id, event.id, new Date(message.created_at));
  };
  return new EventConsumer({
    bus,
    logger: options.logger,
    groupId: options.groupId,
    topic: options.topic,
    kinds: ['message.received', 'message.sent'],
    handle: eachEventByKey(
      (consumed) => consumed.event.data.object.contact_id,
      { 'message.received': count, 'message.sent': count },
      COUNTS_AT_ONCE,
    ),
  });
}
