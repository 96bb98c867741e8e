import { eachEventByKey, EventConsumer, type EventBus } from '@crm/shared';
import type { AgentsDeps } from '../domain/deps';
import { takeInboundMessage } from './intake';

/**
 * The runner's intake: `message.received` from the events topic, in a consumer group (replicas share the
 * partitions; an organization's events share one). Order matters within a conversation only (a burst there gets
 * one answer, after its last message), so a batch is taken one conversation after another in offset order and
 * up to `concurrency` conversations at once. A batch's offsets are committed after its runs are recorded; a
 * redelivered event finds its runs (one per event and agent) and adds nothing.
 */
export function runnerIntake(
  deps: AgentsDeps,
  bus: EventBus,
  options: { groupId: string; topic: string; concurrency: number },
): EventConsumer<'message.received'> {
  return new EventConsumer({
    bus,
    logger: deps.logger,
    groupId: options.groupId,
    topic: options.topic,
    kinds: ['message.received'],
    handle: eachEventByKey(
      ({ event }) => event.data.object.conversation_id,
      { 'message.received': ({ event }) => takeInboundMessage(deps, event) },
      options.concurrency,
    ),
  });
}
