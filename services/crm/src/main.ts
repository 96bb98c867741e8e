import './instrumentation';
import { connectStorage, createLogger, EventBus, onShutdown, OutboxRelay, refreshDerivedFields } from '@crm/shared';
import { startMetricsEndpoint, stopTelemetry } from '@crm/shared/telemetry';
import { loadCrmConfig } from './config';
import { startMessageConsumer } from './events/message-consumer';
import { startCrmServer } from './server';
import { createDeps } from './wiring';

async function main(): Promise<void> {
  const config = loadCrmConfig();
  const logger = createLogger('crm', config.LOG_LEVEL);
  const metrics = await startMetricsEndpoint({ host: config.METRICS_HOST, port: config.METRICS_PORT });
  const db = await connectStorage(config.MONGODB_URI, config.CRM_DB_NAME);
  const bus = new EventBus({ brokers: config.KAFKA_BROKERS.split(','), clientId: config.KAFKA_CLIENT_ID ?? 'crm', logger });
  await bus.ensureTopic(config.EVENTS_TOPIC, config.EVENTS_TOPIC_PARTITIONS, config.EVENTS_TOPIC_REPLICATION_FACTOR);

  let relay: OutboxRelay | undefined;
  const deps = createDeps(db, logger);
  await Promise.all(Object.values(db.connection.models).map((model) => model.init()));
  // Search keys of records stored before them, in the background: the service serves meanwhile.
  void refreshDerivedFields(db, logger);
  if (config.OUTBOX_RELAY_ENABLED) {
    relay = new OutboxRelay({
      outbox: db.outbox,
      bus,
      topic: config.EVENTS_TOPIC,
      logger,
      idleCheckMs: config.OUTBOX_IDLE_CHECK_MS,
    });
    relay.start();
  }
  if (config.CRM_MESSAGE_CONSUMER_ENABLED)
    await startMessageConsumer(deps, bus, { groupId: config.CRM_CONSUMER_GROUP, topic: config.EVENTS_TOPIC, logger });
  const server = await startCrmServer(deps, { host: config.CRM_GRPC_HOST, port: config.CRM_GRPC_PORT, logger });
  logger.info({ port: server.port, metrics: metrics?.port, relay: config.OUTBOX_RELAY_ENABLED }, 'crm service listening');

  onShutdown(logger, [
    { name: 'grpc', run: () => server.stop() },
    { name: 'outbox relay', run: () => relay?.stop() },
    { name: 'kafka', run: () => bus.close() },
    { name: 'mongo', run: () => db.close() },
    { name: 'telemetry', run: () => stopTelemetry() },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
