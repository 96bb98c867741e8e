import type { DomainEvent, EventBus, Logger } from '@crm/shared';
import type { KafkaMessage } from 'kafkajs';
import type { WebhookDeps } from '../domain/deps';
import { fanOut, type ConsumedEvent } from '../domain/fan-out';

const TRACE_HEADERS = ['traceparent', 'tracestate'];

/**
 * Consumes the domain events and stores their deliveries. The bus commits a batch's offsets only after `handle`
 * resolved, i.e. after the deliveries are stored: a crash at any point re-reads the batch, and the dedup key makes
 * the second pass insert nothing. Partitions are spread over the replicas of the consumer group.
 */
export async function startEventConsumer(
  deps: WebhookDeps,
  bus: EventBus,
  options: { groupId: string; topic: string; restartDelayMs?: number },
): Promise<void> {
  const consumer = await bus.consume({
    groupId: options.groupId,
    topic: options.topic,
    fromBeginning: true,
    // A fetch returns as soon as a message arrives (minBytes 1); the wait only bounds an idle poll, so a long one
    // costs no latency and keeps an idle consumer (and the broker) quiet. Below the 30 s session timeout.
    maxWaitTimeInMs: 5_000,
    handle: async (batch) => {
      const events = batch.messages
        .map((message) => parseMessage(message, deps.logger))
        .filter((event): event is ConsumedEvent => event !== null);
      const inserted = await fanOut(deps, events);
      if (inserted.length > 0) deps.deliveriesQueued(inserted);
    },
  });
  // kafkajs gives up for good on a non-retriable error (e.g. "the coordinator is not aware of this member" after a
  // batch outlived the session): the consumer would be dead while the process looks healthy. Join the group again;
  // uncommitted offsets are re-read and deduplicated.
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) return;
    deps.logger.error({ err: payload.error }, 'event consumer crashed; joining the group again');
    setTimeout(() => {
      startEventConsumer(deps, bus, options).catch((error: unknown) => {
        deps.logger.fatal({ err: error }, 'event consumer could not restart; exiting so the process is restarted');
        process.exit(1);
      });
    }, options.restartDelayMs ?? 1_000);
  });
}

/** A message that is not an event is logged and skipped: retrying it forever would stop the partition. */
function parseMessage(message: KafkaMessage, logger: Logger): ConsumedEvent | null {
  try {
    const event = JSON.parse(message.value?.toString('utf8') ?? '') as DomainEvent;
    if (
      typeof event.id !== 'string' ||
      typeof event.type !== 'string' ||
      typeof event.org_id !== 'string' ||
      typeof event.created_at !== 'string'
    ) {
      throw new Error('not a domain event');
    }
    const trace: Record<string, string> = {};
    for (const name of TRACE_HEADERS) {
      const value = message.headers?.[name];
      if (value !== undefined) trace[name] = value.toString();
    }
    return { event: { ...event, data: event.data ?? {} }, trace };
  } catch (error) {
    logger.error({ err: error, offset: message.offset }, 'skipping a message that is not a domain event');
    return null;
  }
}
