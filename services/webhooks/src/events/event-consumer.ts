import { EventConsumer, type EventBus, type EventType } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { storeEvents } from '../domain/event-log';
import { fanOut } from '../domain/fan-out';

/**
 * Consumes every kind of the domain events and stores their deliveries; offsets are committed once they are
 * stored, so a crash at any point reads the batch again, and the dedup key makes the second pass insert nothing.
 * The deliveries then go to the worker in memory: a slow receiver never holds up the consumer. Partitions are
 * spread over the replicas of the consumer group.
 */
export function eventFanOut(deps: WebhookDeps, bus: EventBus, options: { groupId: string; topic: string }): EventConsumer<EventType> {
  return new EventConsumer({
    bus,
    logger: deps.logger,
    groupId: options.groupId,
    topic: options.topic,
    kinds: 'all',
    handle: async (events) => {
      // Every event is kept first (GET /v1/events, replays), then fanned out; both are idempotent on a re-read batch.
      await storeEvents(deps, events);
      const leased = await fanOut(deps, events);
      if (leased.length > 0) deps.deliveriesQueued(leased);
    },
  });
}
