import type { DomainEvent, EventBus, Logger } from '@crm/shared';
import type { KafkaMessage } from 'kafkajs';
import type { CrmDeps } from '../domain/deps';

/** The message kinds that count as "a message exchanged" with a contact. */
const COUNTED = new Set(['message.received', 'message.sent']);

/**
 * Keeps each contact's `messages_count` and `last_message_at` from the messaging service's events. Each event is
 * counted once: the event id is recorded in the same conditional update (see ContactRepository.countMessage), so
 * a redelivered batch changes nothing. Offsets are committed after the batch is applied.
 */
export async function startMessageConsumer(
  deps: CrmDeps,
  bus: EventBus,
  options: { groupId: string; topic: string; logger: Logger },
): Promise<void> {
  const consumer = await bus.consume({
    groupId: options.groupId,
    topic: options.topic,
    fromBeginning: true,
    maxWaitTimeInMs: 50,
    handle: async (batch) => {
      for (const message of batch.messages) {
        const event = parse(message);
        if (!event || !COUNTED.has(event.type)) continue;
        const object = (event.data.object ?? {}) as { contact_id?: unknown; created_at?: unknown };
        if (typeof object.contact_id !== 'string') continue;
        const at = new Date(typeof object.created_at === 'string' ? object.created_at : event.created_at);
        await deps.contacts.countMessage(event.org_id, object.contact_id, event.id, at);
      }
    },
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) return;
    options.logger.error({ err: payload.error }, 'message consumer crashed; joining the group again');
    setTimeout(() => {
      startMessageConsumer(deps, bus, options).catch((error: unknown) => {
        options.logger.fatal({ err: error }, 'message consumer could not restart; exiting so the process is restarted');
        process.exit(1);
      });
    }, 1_000);
  });
}

function parse(message: KafkaMessage): DomainEvent | null {
  if (message.headers?.['event-type'] && !String(message.headers['event-type']).startsWith('message.')) return null;
  try {
    const event = JSON.parse(message.value?.toString('utf8') ?? '') as DomainEvent;
    return typeof event.id === 'string' && typeof event.type === 'string' && typeof event.org_id === 'string' ? event : null;
  } catch {
    return null;
  }
}
