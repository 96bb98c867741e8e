import { bulkhead, ExponentialBackoff, handleWhen, retry, wrap, type IPolicy } from 'cockatiel';
import type { Batch, Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { isTransientError } from '../errors/transient-error';
import { groupBy } from '../group-by';
import type { EventType } from '../events/event-catalogue';
import type { Logger } from '../logger';
import { countDeadLetter, countProcessed, countRetry, recordEventAge } from './consumer-metrics';
import { deadLetterMessage } from './dead-letter';
import { decodeEvent, type ConsumedEvent } from './event-decoding';
import type { EventBus } from './event-bus';
import { OffsetCommits } from './offset-commits';

export type { ConsumedEvent } from './event-decoding';

export interface EventConsumerOptions<K extends EventType> {
  bus: EventBus;
  logger: Logger;
  /** The consumer group: replicas share its partitions, and it names the consumer in logs and metrics. */
  groupId: string;
  topic: string;
  /** The kinds it handles; the others are passed over without being parsed. */
  kinds: readonly K[] | 'all';
  /**
   * The events of one fetched batch of one partition, in offset order. Its effect must be durable when it
   * resolves (offsets are committed then) and idempotent by event id (a crash re-delivers the batch).
   */
  handle: (events: ConsumedEvent<K>[]) => Promise<void>;
  /** Check `data` against the catalogue before handling (default: only for a list of kinds). */
  validate?: boolean;
  /** Non-transient failures of one event before it goes to the dead-letter topic (default 5). */
  attempts?: number;
  /** Backoff between retries (default 200 ms, doubling up to 10 s). */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /**
   * Longest idle fetch (default 1 s). A fetch returns as soon as a message arrives, so this bounds only how often
   * an idle consumer polls (each poll costs CPU: at 250 ms the polls were most of an idle service's ~1.3 % of a
   * core) and how long a stop waits for the fetch in flight.
   */
  maxWaitTimeInMs?: number;
  /**
   * Least time from one fetch of a partition to the next while its events keep coming (default GATHER_MS): a
   * batch handled sooner waits out the rest before kafkajs fetches again, so a trickle of events arrives in
   * batches of this many milliseconds instead of one fetch and one handling per event. Adds at most this much to
   * an event's wait; an idle consumer's first event is fetched at once, and a batch that took longer waits not at all.
   */
  gatherMs?: number;
  /** Partitions handled at once by one replica (default 3). */
  partitionsConsumedConcurrently?: number;
  /** Wait before joining the group again after kafkajs gave up (default 1 s). */
  restartDelayMs?: number;
  /**
   * Longest time a handled batch's offset waits to be committed (default 1 s; offset-commits.ts): a crash re-reads
   * at most this much.
   */
  commitIntervalMs?: number;
}

type Handles = (type: EventType) => boolean;

/**
 * Measured side by side (bench-results/agents-notes.md, session 27): fetching each event as it came, the webhooks
 * replicas spent a third more CPU at 100 events/s and the broker a third to a half more; 50 ms added ~25 ms to the
 * median delivery. 25 ms saved nothing measurable.
 */
const GATHER_MS = 50;

/**
 * The one way to consume the event stream (house style, Events): typed handlers, batches, commit after the effect
 * is durable, bounded retries and a dead-letter topic, graceful stop, lag metrics. A start/stop-able unit, so a
 * service bootstrap can run it beside its server.
 *
 * Failures: a transient error (store, broker or service unavailable) is retried with backoff until it recovers —
 * nothing could be handled meanwhile, and the lag shows it. Any other error is retried `attempts` times; a failing
 * batch is then handled event by event, and an event that still fails goes to `<topic>.dead-letter` with the reason
 * in its headers (counted in crm_kafka_consumer_dead_letters_total), so one poison event never stops a partition.
 */
export class EventConsumer<K extends EventType> {
  private consumer: Consumer | undefined;
  private commits: OffsetCommits | undefined;
  private deadLetterTopic = '';
  private readonly stopping = new AbortController();
  private readonly handles: Handles;
  private readonly validate: boolean;
  private readonly policy: IPolicy;

  constructor(private readonly options: EventConsumerOptions<K>) {
    const kinds = options.kinds;
    this.handles = kinds === 'all' ? () => true : (type) => (kinds as readonly EventType[]).includes(type);
    this.validate = options.validate ?? kinds !== 'all';
    const backoff = () => new ExponentialBackoff({ initialDelay: options.initialDelayMs ?? 200, maxDelay: options.maxDelayMs ?? 10_000 });
    const transient = retry(handleWhen(isTransientError), { maxAttempts: Number.POSITIVE_INFINITY, backoff: backoff() });
    const bounded = retry(
      handleWhen((error) => !isTransientError(error)),
      { maxAttempts: Math.max(0, (options.attempts ?? 5) - 1), backoff: backoff() },
    );
    for (const [policy, isTransient] of [
      [transient, true],
      [bounded, false],
    ] as const) {
      policy.onRetry((reason) => {
        countRetry(options.groupId, options.topic, isTransient);
        options.logger.warn(
          { err: 'error' in reason ? reason.error : undefined, group: options.groupId, attempt: reason.attempt },
          'event handler failed; retrying',
        );
      });
    }
    this.policy = wrap(bounded, transient);
  }

  async start(): Promise<void> {
    const { bus, groupId, topic } = this.options;
    this.deadLetterTopic = await bus.ensureDeadLetterTopic(topic);
    const consumer = bus.consumer(groupId, topic, { maxWaitTimeInMs: this.options.maxWaitTimeInMs ?? 1_000 });
    this.consumer = consumer;
    const commits = new OffsetCommits(
      (offsets) => consumer.commitOffsets(offsets),
      this.options.commitIntervalMs ?? 1_000,
      (error) => this.options.logger.warn({ err: error, group: groupId }, 'could not commit offsets; those events will be read again'),
    );
    this.commits = commits;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => commits.retain(payload.memberAssignment));
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    // kafkajs gives up for good on a non-retriable error (e.g. the group forgot a member whose batch outlived the
    // session): the consumer would be dead while the process looks healthy. Join the group again; uncommitted
    // offsets are read again (handlers are idempotent).
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || this.stopping.signal.aborted) return;
      this.options.logger.error({ err: payload.error, group: groupId }, 'consumer crashed; joining the group again');
      setTimeout(() => void this.restart(consumer), this.options.restartDelayMs ?? 1_000);
    });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 3,
      eachBatch: (payload) => this.consumeBatch(payload),
    });
  }

  /**
   * Stops fetching, lets the batches in hand finish (a retry wait is cut short and not committed), commits what
   * they handled, leaves the group.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    const consumer = this.consumer;
    this.consumer = undefined;
    if (!consumer) return;
    await this.commits?.finishing();
    await consumer.disconnect();
    this.options.bus.release(consumer);
  }

  private async restart(crashed: Consumer): Promise<void> {
    if (this.stopping.signal.aborted || this.consumer !== crashed) return;
    this.commits?.discard();
    await crashed.disconnect().catch(() => undefined);
    this.options.bus.release(crashed);
    this.start().catch((error: unknown) => {
      this.options.logger.fatal(
        { err: error, group: this.options.groupId },
        'consumer could not rejoin its group; exiting so the process is restarted',
      );
      process.exit(1);
    });
  }

  private async consumeBatch(control: EachBatchPayload): Promise<void> {
    const fetched = Date.now();
    const { batch } = control;
    const events: ConsumedEvent<K>[] = [];
    for (const message of batch.messages) {
      const decoded = decodeEvent<K>(message, this.handles, this.validate);
      if (decoded.outcome === 'event') events.push(decoded.consumed);
      else if (decoded.outcome === 'invalid') await this.deadLetter(message, batch.partition, decoded.type, 'invalid', decoded.reason);
    }
    if (events.length > 0) await this.handle(events, batch, control.heartbeat);
    const last = batch.messages[batch.messages.length - 1];
    // A partition handed to another replica meanwhile: it reads on from the last commit.
    if (!last || !control.isRunning() || control.isStale()) return;
    // Resolved: the next fetch of this partition starts after it (unresolved, kafkajs would fetch it again).
    control.resolveOffset(last.offset);
    await this.commits?.handled(batch.topic, batch.partition, (BigInt(last.offset) + 1n).toString());
    countProcessed(this.options.groupId, batch.topic, batch.messages.length);
    const now = Date.now();
    for (const { event } of events) recordEventAge(this.options.groupId, (now - Date.parse(event.created_at)) / 1000);
    const gather = fetched + (this.options.gatherMs ?? GATHER_MS) - now;
    if (gather > 0) await sleep(gather, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }

  /** The batch at once; if it keeps failing, event by event, dead-lettering those that still fail. */
  private async handle(events: ConsumedEvent<K>[], batch: Batch, heartbeat: () => Promise<void>): Promise<void> {
    const run = (part: ConsumedEvent<K>[]) =>
      this.policy.execute(async () => {
        await heartbeat().catch(() => undefined);
        await this.options.handle(part);
      }, this.stopping.signal);
    try {
      await run(events);
      return;
    } catch (error) {
      if (this.stopping.signal.aborted) throw error;
      if (events.length === 1) return this.deadLetterEvent(events[0], batch, error);
    }
    for (const consumed of events) {
      try {
        await run([consumed]);
      } catch (error) {
        if (this.stopping.signal.aborted) throw error;
        await this.deadLetterEvent(consumed, batch, error);
      }
    }
  }

  private async deadLetterEvent(consumed: ConsumedEvent<K> | undefined, batch: Batch, error: unknown): Promise<void> {
    const message = consumed && batch.messages.find((candidate) => candidate.offset === consumed.offset);
    if (!consumed || !message) return;
    await this.deadLetter(message, batch.partition, consumed.event.type, 'failed', error instanceof Error ? error.message : String(error));
  }

  private async deadLetter(
    message: KafkaMessage,
    partition: number,
    type: string,
    reason: 'invalid' | 'failed',
    detail: string,
  ): Promise<void> {
    const { bus, groupId, topic, logger } = this.options;
    logger.error({ group: groupId, partition, offset: message.offset, type, reason, detail }, 'event sent to the dead-letter topic');
    await bus.publish(this.deadLetterTopic, [deadLetterMessage(message, { groupId, topic, partition, reason, detail })]);
    countDeadLetter(groupId, topic, type, reason);
  }
}

/** Creates and starts a consumer (see EventConsumer); `stop()` it on shutdown. */
export async function runConsumer<K extends EventType>(options: EventConsumerOptions<K>): Promise<EventConsumer<K>> {
  const consumer = new EventConsumer(options);
  await consumer.start();
  return consumer;
}

/** A batch handler from one typed handler per kind, called in offset order. */
export function eachEvent<K extends EventType>(handlers: { [T in K]: (consumed: ConsumedEvent<T>) => Promise<void> }) {
  return async (events: ConsumedEvent<K>[]): Promise<void> => {
    for (const consumed of events) {
      const handler = handlers[consumed.event.type as K] as (consumed: ConsumedEvent<K>) => Promise<void>;
      await handler(consumed);
    }
  };
}

/**
 * A batch handler that keeps order only where it matters: events of one key (e.g. a conversation) are handled one
 * after another in offset order, events of different keys at once, at most `concurrency` keys at a time. Every
 * event is tried; a failure is thrown once the others settled, so the batch goes again (handlers are idempotent).
 */
export function eachEventByKey<K extends EventType>(
  keyOf: (consumed: ConsumedEvent<K>) => string,
  handlers: { [T in K]: (consumed: ConsumedEvent<T>) => Promise<void> },
  concurrency: number,
) {
  const inOrder = eachEvent(handlers);
  const limit = bulkhead(concurrency, Number.POSITIVE_INFINITY);
  return async (events: ConsumedEvent<K>[]): Promise<void> => {
    const byKey = groupBy(events, keyOf);
    const outcomes = await Promise.allSettled([...byKey.values()].map((group) => limit.execute(() => inOrder(group))));
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  };
}
