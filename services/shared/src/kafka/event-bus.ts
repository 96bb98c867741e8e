import { Partitioners, type Consumer, type IHeaders, type Kafka, type Producer } from 'kafkajs';
import type { KafkaSettings } from '../config';
import type { Logger } from '../logger';
import { ConsumerLag } from './consumer-metrics';
import { quietIdleRequestQueues } from './idle-request-queue';
import { createKafka } from './kafka-client';

quietIdleRequestQueues();

export interface OutgoingMessage {
  key: string;
  value: string;
  headers?: IHeaders;
}

export interface EventBusOptions {
  /** The brokers, this process's SASL login and TLS (config.ts kafkaEnv). */
  kafka: KafkaSettings;
  clientId: string;
  logger: Logger;
}

/**
 * The one kafkajs adapter. The producer waits for every in-sync replica (acks -1) and does not use kafkajs's
 * experimental idempotent mode: delivery is at-least-once, and consumers deduplicate by event id.
 */
export class EventBus {
  private readonly kafka: Kafka;
  /** Connected once, on the first publish; concurrent first publishes share it. */
  private producer: Promise<Producer> | undefined;
  private readonly consumers: Consumer[] = [];
  private lag: ConsumerLag | undefined;

  constructor(private readonly options: EventBusOptions) {
    this.kafka = createKafka(options.kafka, {
      clientId: options.clientId,
      logger: options.logger,
      retry: { retries: 8, initialRetryTime: 200 },
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
    this.producer ??= (async () => {
      // The partitioner named, not defaulted: kafkajs then keeps its v2 default (murmur2 of the key, as Java clients
      // place keys) without warning about the change from v1 at every start.
      const producer = this.kafka.producer({
        allowAutoTopicCreation: false,
        idempotent: false,
        maxInFlightRequests: 5,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await producer.connect();
      return producer;
    })().catch((error: unknown) => {
      this.producer = undefined;
      throw error;
    });
    await (await this.producer).send({ topic, acks: -1, messages });
  }

  /**
   * A consumer of `groupId` (see event-consumer.ts, the one consumer kit, for how it is run). Its lag is reported
   * from the broker's offsets; `close` disconnects it.
   */
  consumer(groupId: string, topic: string, options: { maxWaitTimeInMs: number }): Consumer {
    const consumer = this.kafka.consumer({ groupId, maxWaitTimeInMs: options.maxWaitTimeInMs, allowAutoTopicCreation: false });
    this.consumers.push(consumer);
    (this.lag ??= new ConsumerLag(() => this.kafka.admin())).track(groupId, topic);
    return consumer;
  }

  /** Forgets a consumer that has been disconnected (a restart makes a new one). */
  release(consumer: Consumer): void {
    const index = this.consumers.indexOf(consumer);
    if (index >= 0) this.consumers.splice(index, 1);
  }

  /**
   * Creates `<topic>.dead-letter` if missing: one partition (it is read by people, rarely), the source topic's
   * replication factor. Returns its name.
   */
  async ensureDeadLetterTopic(topic: string): Promise<string> {
    const name = `${topic}.dead-letter`;
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
      const replicas = metadata.topics[0]?.partitions[0]?.replicas.length ?? 1;
      await this.ensureTopic(name, 1, replicas).catch(() => this.ensureTopic(name, 1, replicas));
    } finally {
      await admin.disconnect();
    }
    return name;
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
    const producer = await this.producer?.catch(() => undefined);
    this.producer = undefined;
    await producer?.disconnect();
  }
}
