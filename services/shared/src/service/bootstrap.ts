import type { ServiceConfig } from '../config';
import { startGrpcServer, type RunningGrpcServer } from '../grpc/server';
import { identityKeys } from '../grpc/service-identity';
import { EventBus } from '../kafka/event-bus';
import { createLogger, type Logger } from '../logger';
import { refreshDerivedFields } from '../mongo/derived-fields';
import { connectStorage } from '../mongo/storage';
import { OutboxRelay } from '../outbox/outbox-relay';
import { onShutdown, type ShutdownStep } from '../shutdown';
import { startMetricsEndpoint, stopTelemetry } from '../telemetry/start';
import type { ServiceContext, ServiceDefinition, Startables } from './service-definition';
import { startupRetry } from './startup-retry';

/**
 * Starts a service in the one order every service shares — metrics, database, events topic (both with the
 * start-up retry), dependencies and indexes, outbox relay, then startInOrder: workers, gRPC server and its health
 * (SERVING once bound), other listeners, consumers. The graceful shutdown (shutdownSteps) is registered first and
 * stops whatever has started by the time the signal comes: health passes once the server is bound, while the
 * consumers may still be joining their groups, and a SIGTERM then must drain and exit 0 like any other.
 */
export async function bootstrap<C extends ServiceConfig, D>(name: string, config: C, service: ServiceDefinition<C, D>): Promise<void> {
  const logger = createLogger(name, config.LOG_LEVEL);
  const running: Running = { config };
  const stopping = onShutdown(logger, () => shutdownSteps(running), config.SHUTDOWN_TIMEOUT_MS);
  // A start-up step that fails because the shutdown closed what it used is the shutdown's doing: it exits 0.
  await start(name, config, service, logger, running, stopping).catch((error: unknown) => {
    if (!stopping.aborted) throw error;
  });
}

async function start<C extends ServiceConfig, D>(
  name: string,
  config: C,
  service: ServiceDefinition<C, D>,
  logger: Logger,
  running: Running,
  stopping: AbortSignal,
): Promise<void> {
  const metrics = await startMetricsEndpoint({ host: config.METRICS_HOST, port: config.METRICS_PORT });
  const { name: dbName, requires } = service.database;
  const storage = await startupRetry(logger, 'the database', () =>
    connectStorage(config.MONGODB_URI, dbName, { requires, monitorCommands: config.EXPOSE_DB_COMMANDS !== 'off' }),
  );
  running.storage = storage;
  const bus = new EventBus({ kafka: config, clientId: name, logger });
  running.bus = bus;
  // Every service makes sure the topic exists; replicas and services starting together may race to create it.
  await startupRetry(logger, 'the events topic', () =>
    bus.ensureTopic(config.EVENTS_TOPIC, config.EVENTS_TOPIC_PARTITIONS, config.EVENTS_TOPIC_REPLICATION_FACTOR),
  );
  const deps = service.deps(storage, logger);
  running.close = () => service.close?.(deps);
  await Promise.all(Object.values(storage.connection.models).map((model) => model.init()));
  // Derived keys (search keys) of records stored before them, in the background: the service serves meanwhile.
  void refreshDerivedFields(storage, logger);
  const context: ServiceContext<C, D> = { config, logger, storage, bus, deps };
  await service.prepare?.(context);
  if (stopping.aborted) return;

  running.relay =
    storage.outbox.collections().length > 0 && config.OUTBOX_RELAY_ENABLED !== false
      ? new OutboxRelay({ outbox: storage.outbox, bus, topic: config.EVENTS_TOPIC, logger, idleCheckMs: config.OUTBOX_IDLE_CHECK_MS })
      : undefined;
  running.relay?.start();
  await startInOrder(
    logger,
    {
      workers: service.workers?.(context),
      server: () => startGrpcServer({ ...service.grpc(context), identity: identityKeys(config) }),
      listeners: service.listeners?.(context),
      consumers: service.consumers?.(context),
    },
    running,
    stopping,
  );
  if (stopping.aborted) return;
  logger.info(
    {
      port: running.server?.port,
      metrics: metrics?.port,
      relay: running.relay !== undefined,
      workers: namesOf(running.workers),
      consumers: namesOf(running.consumers),
    },
    `${name} service listening`,
  );
}

const namesOf = (startables: Startables = {}) => Object.keys(startables).filter((name) => startables[name]);

/**
 * Workers before the server (a request may hand them work); consumers last: a group join can take as long as a
 * crashed member's Kafka session (30 s), and a restarted replica must not refuse calls or provider callbacks
 * (messaging's listener) meanwhile — they went to the other replica, were retried with backoff, or were lost.
 * Each part is put in `started` as soon as it runs, so that a shutdown meanwhile stops it; once `stopping` has
 * aborted, nothing more starts.
 */
export async function startInOrder<S>(
  logger: Logger,
  parts: { workers?: Startables; server: () => Promise<S>; listeners?: Startables; consumers?: Startables },
  started: { workers?: Startables; server?: S; listeners?: Startables; consumers?: Startables } = {},
  stopping?: AbortSignal,
): Promise<void> {
  await startAll(logger, parts.workers, (started.workers = {}), stopping);
  if (stopping?.aborted) return;
  started.server = await parts.server();
  await startAll(logger, parts.listeners, (started.listeners = {}), stopping);
  await startAll(logger, parts.consumers, (started.consumers = {}), stopping);
}

async function startAll(logger: Logger, startables: Startables = {}, started: Startables, stopping?: AbortSignal): Promise<void> {
  for (const [name, startable] of Object.entries(startables)) {
    if (stopping?.aborted) return;
    await startable?.start();
    started[name] = startable;
    logger.debug({ started: name }, 'started');
  }
}

const stopAll = (startables: Startables = {}) => Promise.all(Object.values(startables).map((startable) => startable?.stop?.()));

/** What a service has started so far; a shutdown stops exactly that. */
interface Running {
  config: ServiceConfig;
  storage?: { close(): Promise<void> };
  bus?: EventBus;
  close?: () => unknown;
  relay?: OutboxRelay;
  workers?: Startables;
  server?: RunningGrpcServer;
  listeners?: Startables;
  consumers?: Startables;
}

/**
 * SIGTERM: health answers NOT_SERVING while calls are still served for SHUTDOWN_DRAIN_MS (load balancers and
 * clients move away); the listeners then stop taking calls and give those in flight SHUTDOWN_GRACE_MS; consumers
 * finish and commit their batch and leave their groups; workers finish what they hold; the relay publishes what
 * the last writes left; then Kafka, the other services' clients and the database are closed.
 */
export function shutdownSteps(running: Running): ShutdownStep[] {
  const { config } = running;
  return [
    { name: 'health NOT_SERVING', run: () => running.server?.drain() },
    { name: 'drain', run: () => running.server && new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DRAIN_MS)) },
    { name: 'listeners', run: () => Promise.all([running.server?.stop(config.SHUTDOWN_GRACE_MS), stopAll(running.listeners)]) },
    { name: 'consumers', run: () => stopAll(running.consumers).then(() => running.bus?.stopConsumers()) },
    { name: 'workers', run: () => stopAll(running.workers) },
    { name: 'outbox relay', run: () => running.relay?.stop() },
    { name: 'kafka', run: () => running.bus?.close() },
    { name: 'clients', run: () => running.close?.() },
    { name: 'database', run: () => running.storage?.close() },
    { name: 'telemetry', run: () => stopTelemetry() },
  ];
}
