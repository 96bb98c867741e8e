import { eachEvent, EventConsumer, type EventBus } from '@crm/shared';
import type { AgentsDeps } from '../domain/deps';
import { takeInboundMessage } from './intake';

/**
 * The runner's intake: `message.received` from the events topic, in a consumer group (replicas share the
 * partitions; an organization's events share one, so they are taken in order). A batch's offsets are committed
 * after its runs are recorded; a redelivered event finds its runs (one per event and agent) and adds nothing.
 */
export function runnerIntake(
  deps: AgentsDeps,
  bus: EventBus,
  options: { groupId: string; topic: string },
): EventConsumer<'message.received'> {
  return new EventConsumer({
    bus,
    logger: deps.logger,
    groupId: options.groupId,
    topic: options.topic,
    kinds: ['message.received'],
    handle: eachEvent({ 'message.received': ({ event }) => takeInboundMessage(deps, event) }),
  });
}
