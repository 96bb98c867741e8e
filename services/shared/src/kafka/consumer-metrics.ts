import type { ObservableResult } from '@opentelemetry/api';
import type { Admin } from 'kafkajs';
import { cachedObservation, instruments, SECONDS_BUCKETS } from '../telemetry/metrics';

const kafka = instruments((meter) => ({
  processed: meter.createCounter('crm_kafka_consumer_processed_events_total', {
    description: 'Events a consumer group handled and committed, by group and topic.',
  }),
  deadLetters: meter.createCounter('crm_kafka_consumer_dead_letters_total', {
    description:
      'Events a consumer group gave up on and published to the dead-letter topic, by group, kind and reason (invalid: not a valid event of the catalogue; failed: its handler failed every retry).',
  }),
  retries: meter.createCounter('crm_kafka_consumer_retries_total', {
    description:
      'Handler retries, by group and whether the error was transient (the store or a service unavailable: retried until it recovers) or not (retried a bounded number of times, then dead-lettered).',
  }),
  age: meter.createHistogram('crm_kafka_consumer_event_age_seconds', {
    description:
      'Time from an event being written (its created_at) to its handler having finished, by group: the end-to-end delay of the stream.',
    unit: 's',
    advice: { explicitBucketBoundaries: [...SECONDS_BUCKETS, 30, 60, 300] },
  }),
  lag: meter.createObservableGauge('crm_kafka_consumer_lag_messages', {
    description:
      "Messages of the topic not yet committed by the group (sum over partitions: log end offset − committed offset). Every replica reports the group's total: aggregate with max.",
  }),
}));

export function countProcessed(groupId: string, topic: string, events: number): void {
  kafka().processed.add(events, { consumer_group: groupId, topic });
}

export function countDeadLetter(groupId: string, topic: string, eventType: string, reason: 'invalid' | 'failed'): void {
  kafka().deadLetters.add(1, { consumer_group: groupId, topic, event_type: eventType, reason });
}

export function countRetry(groupId: string, topic: string, transient: boolean): void {
  kafka().retries.add(1, { consumer_group: groupId, topic, transient: String(transient) });
}

export function recordEventAge(groupId: string, seconds: number): void {
  if (Number.isFinite(seconds)) kafka().age.record(Math.max(0, seconds), { consumer_group: groupId });
}

interface Subscription {
  groupId: string;
  topic: string;
}

/**
 * The lag of this process's consumer groups, read from the broker when scraped (at most every 5 s): the topic's
 * end offsets against the group's committed offsets. Unlike the lag seen in a fetched batch, it keeps growing
 * when the consumers are stuck or gone, which is when it matters.
 */
export class ConsumerLag {
  private readonly subscriptions: Subscription[] = [];
  private admin: Promise<Admin> | undefined;
  private readonly read = cachedObservation(() => this.fetch(), 5_000);
  private readonly report = async (result: ObservableResult): Promise<void> => {
    for (const { groupId, topic, messages } of (await this.read()) ?? []) result.observe(messages, { consumer_group: groupId, topic });
  };

  constructor(private readonly newAdmin: () => Admin) {
    kafka().lag.addCallback(this.report);
  }

  /** A consumer restarted after a failure tracks its group again: counted once. */
  track(groupId: string, topic: string): void {
    if (!this.subscriptions.some((known) => known.groupId === groupId && known.topic === topic))
      this.subscriptions.push({ groupId, topic });
  }

  async close(): Promise<void> {
    kafka().lag.removeCallback(this.report);
    const admin = await this.admin?.catch(() => undefined);
    this.admin = undefined;
    await admin?.disconnect();
  }

  private async fetch(): Promise<Array<Subscription & { messages: number }>> {
    const admin = await this.connected();
    return Promise.all(
      this.subscriptions.map(async ({ groupId, topic }) => {
        const [ends, committed] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
        const done = new Map((committed[0]?.partitions ?? []).map((partition) => [partition.partition, Number(partition.offset)]));
        let messages = 0;
        for (const end of ends) {
          // -1: nothing committed yet; the group starts from the beginning (fromBeginning), so all of it is lag.
          const from = done.get(end.partition) ?? -1;
          messages += Math.max(0, Number(end.high) - (from >= 0 ? from : Number(end.low)));
        }
        return { groupId, topic, messages };
      }),
    );
  }

  private connected(): Promise<Admin> {
    this.admin ??= (async () => {
      const admin = this.newAdmin();
      await admin.connect();
      return admin;
    })().catch((error: unknown) => {
      this.admin = undefined;
      throw error;
    });
    return this.admin;
  }
}
