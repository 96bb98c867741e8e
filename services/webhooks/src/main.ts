import './instrumentation';
import { connectMongo, createLogger, EventBus, onShutdown } from '@crm/shared';
import { startMetricsEndpoint, stopTelemetry } from '@crm/shared/telemetry';
import { loadWebhooksConfig } from './config';
import { sealStoredSecrets } from './domain/seal-stored-secrets';
import { startEventConsumer } from './events/event-consumer';
import { startWebhooksServer } from './server';
import { createDeps } from './wiring';
import { startDeliveryWorker } from './worker/delivery-worker';

async function main(): Promise<void> {
  const config = loadWebhooksConfig();
  const logger = createLogger('webhooks', config.LOG_LEVEL);
  const metrics = await startMetricsEndpoint({ host: config.METRICS_HOST, port: config.METRICS_PORT });
  const db = await connectMongo(config.MONGODB_URI, config.WEBHOOKS_DB_NAME);
  const bus = new EventBus({ brokers: config.KAFKA_BROKERS.split(','), clientId: config.KAFKA_CLIENT_ID ?? 'webhooks', logger });
  // The CRM may be creating the topic at the same moment; a second try sees it.
  await bus
    .ensureTopic(config.EVENTS_TOPIC, config.EVENTS_TOPIC_PARTITIONS, config.EVENTS_TOPIC_REPLICATION_FACTOR)
    .catch(() => bus.ensureTopic(config.EVENTS_TOPIC, config.EVENTS_TOPIC_PARTITIONS, config.EVENTS_TOPIC_REPLICATION_FACTOR));

  // The worker is woken by the consumer and the reactivation path through deps; it is created right below.
  const deps = createDeps(db, config, logger, {
    deliveriesQueued: (leased) => (leased ? worker.dispatcher.accept(leased) : worker.scanner.nudge()),
    paused: (orgId, webhookId) => worker.dispatcher.holdEndpoint(orgId, webhookId),
  });
  await Promise.all(Object.values(db.models).map((model) => model.init()));
  await sealStoredSecrets(deps);
  const worker = startDeliveryWorker(deps, config);
  const server = await startWebhooksServer(deps, { host: config.WEBHOOKS_GRPC_HOST, port: config.WEBHOOKS_GRPC_PORT, logger });
  const consumer = await startEventConsumer(deps, bus, { groupId: config.WEBHOOK_CONSUMER_GROUP, topic: config.EVENTS_TOPIC });
  logger.info({ port: server.port, metrics: metrics?.port, group: config.WEBHOOK_CONSUMER_GROUP }, 'webhooks service listening');

  onShutdown(logger, [
    { name: 'grpc', run: () => server.stop() },
    { name: 'kafka consumer', run: () => consumer.stop() },
    { name: 'kafka', run: () => bus.close() },
    { name: 'delivery worker', run: () => worker.stop() },
    { name: 'mongo', run: () => db.close() },
    { name: 'telemetry', run: () => stopTelemetry() },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
