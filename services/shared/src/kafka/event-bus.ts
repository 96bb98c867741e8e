import { Kafka, logLevel, type Consumer, type EachBatchPayload, type IHeaders, type Producer } from 'kafkajs';
import type { Logger } from '../logger';
import { ConsumerLag, countProcessed } from './consumer-metrics';
import { quietIdleRequestQueues } from './idle-request-queue';

quietIdleRequestQueues();

export interface OutgoingMessage {
  key: string;
  value: string;
  headers?: IHeaders;
}

export interface EventBusOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
}

/**
 * The one kafkajs adapter. The producer waits for every in-sync replica (acks -1) and does not use kafkajs's
 * experimental idempotent mode: delivery is at-least-once, and consumers deduplicate by event id.
 */
export class EventBus {
  private readonly kafka: Kafka;
  private producer: Producer | undefined;
  private readonly consumers: Consumer[] = [];
  private lag: ConsumerLag | undefined;

  constructor(private readonly options: EventBusOptions) {
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      logLevel: logLevel.WARN,
      retry: { retries: 8, initialRetryTime: 200 },
      logCreator:
        () =>
        ({ namespace, log }) =>
          options.logger.warn({ kafka: namespace }, log.message),
    });
  }

  /**
   * Creates the topic if missing (auto-creation is off on our brokers). With replicas, an acknowledged write
   * (acks=-1) must reach two of them, so losing one broker loses nothing.
   */
  async ensureTopic(topic: string, partitions: number, replicationFactor = 1): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = await admin.listTopics();
      if (!existing.includes(topic)) {
        const minInSync = String(Math.min(2, replicationFactor));
        await admin.createTopics({
          topics: [
            { topic, numPartitions: partitions, replicationFactor, configEntries: [{ name: 'min.insync.replicas', value: minInSync }] },
          ],
          waitForLeaders: true,
        });
      }
    } finally {
      await admin.disconnect();
    }
  }

  async publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    if (!this.producer) {
      const producer = this.kafka.producer({ allowAutoTopicCreation: false, idempotent: false, maxInFlightRequests: 5 });
      await producer.connect();
      this.producer = producer;
    }
    await this.producer.send({ topic, acks: -1, messages });
  }

  /**
   * Runs a consumer group that commits an offset only after `handle` resolved for its batch, so a crash at any
   * point re-delivers instead of dropping.
   */
  async consume(options: {
    groupId: string;
    topic: string;
    fromBeginning?: boolean;
    maxWaitTimeInMs?: number;
    handle: (batch: EachBatchPayload['batch']) => Promise<void>;
  }): Promise<Consumer> {
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      maxWaitTimeInMs: options.maxWaitTimeInMs ?? 5_000,
      allowAutoTopicCreation: false,
    });
    await consumer.connect();
    await consumer.subscribe({ topic: options.topic, fromBeginning: options.fromBeginning ?? true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary, heartbeat }) => {
        await options.handle(batch);
        const last = batch.messages[batch.messages.length - 1];
        if (!last) return;
        resolveOffset(last.offset);
        await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() }]);
        countProcessed(options.groupId, batch.topic, batch.messages.length);
        await commitOffsetsIfNecessary();
        await heartbeat();
      },
    });
    this.consumers.push(consumer);
    (this.lag ??= new ConsumerLag(() => this.kafka.admin())).track(options.groupId, options.topic);
    return consumer;
  }

  /**
   * Stops every consumer of this bus: each finishes the batch it is handling (its offsets committed after the
   * effect), then leaves its group, so the partitions move to the other replicas at once. The producer stays.
   */
  async stopConsumers(): Promise<void> {
    await Promise.allSettled(this.consumers.splice(0).map((consumer) => consumer.disconnect()));
    await this.lag?.close().catch(() => undefined);
    this.lag = undefined;
  }

  async close(): Promise<void> {
    await this.stopConsumers();
    await this.producer?.disconnect();
    this.producer = undefined;
  }
}
