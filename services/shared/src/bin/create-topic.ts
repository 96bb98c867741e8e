/**
 * Creates the domain-events topic if it is missing, with EVENTS_TOPIC_PARTITIONS partitions, a replication factor
 * of EVENTS_TOPIC_REPLICATION_FACTOR and min.insync.replicas 2 from a factor of 2 or more (EventBus.ensureTopic,
 * the same call every service makes at start). The Helm chart runs it as a pre-install/pre-upgrade hook Job
 * against an external Kafka, so the topic exists with the intended durability before any service starts, rather
 * than being created by whichever replica starts first. Exits non-zero when the brokers refuse (e.g. fewer
 * brokers than the replication factor), which fails the install instead of leaving a fragile topic.
 */
import { z } from 'zod';
import { commonEnv, kafkaEnv, loadConfig, startFailure } from '../config';
import { EventBus } from '../kafka/event-bus';
import { createLogger } from '../logger';

const schema = z.object({
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  ...kafkaEnv,
  EVENTS_TOPIC: commonEnv.EVENTS_TOPIC,
  EVENTS_TOPIC_PARTITIONS: commonEnv.EVENTS_TOPIC_PARTITIONS,
  EVENTS_TOPIC_REPLICATION_FACTOR: commonEnv.EVENTS_TOPIC_REPLICATION_FACTOR,
});

async function main(): Promise<void> {
  const config = loadConfig(schema);
  const logger = createLogger('create-topic', config.LOG_LEVEL);
  const bus = new EventBus({ kafka: config, clientId: 'create-topic', logger });
  try {
    await bus.ensureTopic(config.EVENTS_TOPIC, config.EVENTS_TOPIC_PARTITIONS, config.EVENTS_TOPIC_REPLICATION_FACTOR);
    logger.info(
      {
        topic: config.EVENTS_TOPIC,
        partitions: config.EVENTS_TOPIC_PARTITIONS,
        replicationFactor: config.EVENTS_TOPIC_REPLICATION_FACTOR,
      },
      'events topic present',
    );
  } finally {
    await bus.close();
  }
}

main().catch((error: unknown) => {
  // A bad environment (e.g. a Kafka mechanism without its login) in one line, as the services print it.
  console.error(startFailure('create-topic', error));
  process.exit(1);
});
