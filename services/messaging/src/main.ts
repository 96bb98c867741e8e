import './instrumentation';
import { connectStorage, createLogger, EventBus, onShutdown, OutboxRelay } from '@crm/shared';
import { startMetricsEndpoint, stopTelemetry } from '@crm/shared/telemetry';
import { observeLanes } from './broadcasts/broadcast-metrics';
import { BroadcastSender } from './broadcasts/sender';
import { loadMessagingConfig } from './config';
import { startCallbackServer } from './http/callback-server';
import { startMessagingServer } from './server';
import { createDeps } from './wiring';

async function main(): Promise<void> {
  const config = loadMessagingConfig();
  const logger = createLogger('messaging', config.LOG_LEVEL);
  const metrics = await startMetricsEndpoint({ host: config.METRICS_HOST, port: config.METRICS_PORT });
  // A message and its conversation change are stored in one transaction (a replica set; SecantusDB is one).
  const db = await connectStorage(config.MONGODB_URI, config.MESSAGING_DB_NAME, { requires: ['transactions'] });
  const bus = new EventBus({ brokers: config.KAFKA_BROKERS.split(','), clientId: config.KAFKA_CLIENT_ID ?? 'messaging', logger });
  await bus.ensureTopic(config.EVENTS_TOPIC, config.EVENTS_TOPIC_PARTITIONS, config.EVENTS_TOPIC_REPLICATION_FACTOR);

  let relay: OutboxRelay | undefined;
  let sender: BroadcastSender | undefined;
  const deps = createDeps(db, config, logger, () => sender?.wake());
  await Promise.all(Object.values(db.connection.models).map((model) => model.init()));
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
  observeLanes(deps.broadcasts.lanes.collection);
  if (config.BROADCAST_SENDER_ENABLED) {
    sender = new BroadcastSender(deps);
    sender.start();
  }
  const server = await startMessagingServer(deps, { host: config.MESSAGING_GRPC_HOST, port: config.MESSAGING_GRPC_PORT, logger });
  const callbacks = await startCallbackServer(deps, {
    host: config.MESSAGING_HTTP_HOST,
    port: config.MESSAGING_HTTP_PORT,
    secret: config.PROVIDER_CALLBACK_SECRET,
  });
  logger.info(
    {
      port: server.port,
      metrics: metrics?.port,
      callbacks: callbacks.port,
      relay: config.OUTBOX_RELAY_ENABLED,
      broadcasts: config.BROADCAST_SENDER_ENABLED,
    },
    'messaging service listening',
  );

  onShutdown(logger, [
    { name: 'callbacks', run: () => callbacks.stop() },
    { name: 'grpc', run: () => server.stop() },
    { name: 'broadcast sender', run: () => sender?.stop() },
    { name: 'outbox relay', run: () => relay?.stop() },
    { name: 'crm clients', run: () => deps.close() },
    { name: 'kafka', run: () => bus.close() },
    { name: 'mongo', run: () => db.close() },
    { name: 'telemetry', run: () => stopTelemetry() },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
