import type { DomainEvent, EventBus } from '@crm/shared';
import type { KafkaMessage } from 'kafkajs';
import type { AgentsDeps } from '../domain/deps';
import { takeInboundMessage } from './intake';

/**
 * The runner's intake: consumes `message.received` from the events topic in a consumer group (replicas share the
 * partitions; an organization's events share one, so they are taken in order). A batch's offsets are committed
 * after its runs are recorded; a redelivered event finds its runs (one per event and agent) and adds nothing.
 */
export async function startEventConsumer(deps: AgentsDeps, bus: EventBus, options: { groupId: string; topic: string }): Promise<void> {
  const consumer = await bus.consume({
    groupId: options.groupId,
    topic: options.topic,
    fromBeginning: true,
    // A fetch returns as soon as a message arrives; this only bounds an idle poll.
    maxWaitTimeInMs: 1_000,
    handle: async (batch) => {
      for (const message of batch.messages) {
        const event = parse(message);
        if (event) await takeInboundMessage(deps, event);
      }
    },
  });
  // kafkajs gives up for good on a non-retriable error: join the group again (uncommitted events are re-read).
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) return;
    deps.logger.error({ err: payload.error }, 'runner consumer crashed; joining the group again');
    setTimeout(() => {
      startEventConsumer(deps, bus, options).catch((error: unknown) => {
        deps.logger.fatal({ err: error }, 'runner consumer could not restart; exiting so the process is restarted');
        process.exit(1);
      });
    }, 1_000);
  });
}

/** Only `message.received` matters; the header spares parsing the other events. */
function parse(message: KafkaMessage): DomainEvent | null {
  const type = message.headers?.['event-type'];
  if (type !== undefined && String(type) !== 'message.received') return null;
  try {
    const event = JSON.parse(message.value?.toString('utf8') ?? '') as DomainEvent;
    return typeof event.id === 'string' && event.type === 'message.received' && typeof event.org_id === 'string' ? event : null;
  } catch {
    return null;
  }
}
