import './instrumentation';
import { connectMongo, createLogger, EventBus, onShutdown } from '@crm/shared';
import { startMetricsEndpoint, stopTelemetry } from '@crm/shared/telemetry';
import { loadAgentsConfig } from './config';
import { startEventConsumer } from './runner/event-consumer';
import { RunScheduler } from './runner/scheduler';
import { startAgentsServer } from './server';
import { createDeps } from './wiring';

async function main(): Promise<void> {
  const config = loadAgentsConfig();
  const logger = createLogger('agents', config.LOG_LEVEL);
  const metrics = await startMetricsEndpoint({ host: config.METRICS_HOST, port: config.METRICS_PORT });
  const db = await connectMongo(config.MONGODB_URI, config.AGENTS_DB_NAME);
  const bus = new EventBus({ brokers: config.KAFKA_BROKERS.split(','), clientId: config.KAFKA_CLIENT_ID ?? 'agents', logger });
  // Another service may be creating the topic at the same moment; a second try sees it.
  await bus
    .ensureTopic(config.EVENTS_TOPIC, config.EVENTS_TOPIC_PARTITIONS, config.EVENTS_TOPIC_REPLICATION_FACTOR)
    .catch(() => bus.ensureTopic(config.EVENTS_TOPIC, config.EVENTS_TOPIC_PARTITIONS, config.EVENTS_TOPIC_REPLICATION_FACTOR));

  let scheduler: RunScheduler | undefined;
  let consumer: Awaited<ReturnType<typeof startEventConsumer>> | undefined;
  const deps = createDeps(db, config, logger, (at) => scheduler?.wake(at));
  await Promise.all(Object.values(db.models).map((model) => model.init()));
  const server = await startAgentsServer(deps, { host: config.AGENTS_GRPC_HOST, port: config.AGENTS_GRPC_PORT, logger });
  if (config.AGENTS_RUNNER_ENABLED) {
    scheduler = new RunScheduler({ deps, concurrency: config.AGENTS_RUN_CONCURRENCY, idleCheckMs: config.AGENTS_IDLE_CHECK_MS });
    scheduler.start();
    consumer = await startEventConsumer(deps, bus, { groupId: config.AGENTS_CONSUMER_GROUP, topic: config.EVENTS_TOPIC });
  }
  logger.info(
    { port: server.port, metrics: metrics?.port, runner: config.AGENTS_RUNNER_ENABLED, model: deps.model.name },
    'agents service listening',
  );

  onShutdown(logger, [
    { name: 'grpc', run: () => server.stop() },
    { name: 'kafka consumer', run: () => consumer?.stop() },
    { name: 'kafka', run: () => bus.close() },
    { name: 'run scheduler', run: () => scheduler?.stop() },
    { name: 'clients', run: () => deps.close() },
    { name: 'mongo', run: () => db.close() },
    { name: 'telemetry', run: () => stopTelemetry() },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
