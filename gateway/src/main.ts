import { config } from './instrumentation';
import { startFailure } from '@crm/shared/config';
import { createLogger, onShutdown, REDACT } from '@crm/shared/core';
import { connectMongoClient } from '@crm/shared/mongo-driver';
import { startMetricsEndpoint, stopTelemetry } from '@crm/shared/telemetry';
import { buildApp } from './app';
import { closeClients, createClients } from './clients';
import { GracefulShutdown } from './http/graceful-shutdown';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { RateLimitStore } from './plugins/rate-limit.store';

async function main(): Promise<void> {
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const metrics = await startMetricsEndpoint({ host: config.METRICS_HOST, port: config.METRICS_PORT });
  const mongo = await connectMongoClient(config.MONGODB_URI, { monitorCommands: config.EXPOSE_DB_COMMANDS !== 'off' });
  const idempotency = new IdempotencyStore(mongo.db(config.GATEWAY_DB_NAME), {
    ttlMs: config.IDEMPOTENCY_TTL_HOURS * 3_600_000,
    errorTtlMs: config.IDEMPOTENCY_ERROR_TTL_MINUTES * 60_000,
    maxErrorsPerOrganization: config.IDEMPOTENCY_MAX_ERRORS_PER_ORG,
  });
  await idempotency.init();
  const rateLimitCounter = new RateLimitStore(mongo.db(config.GATEWAY_DB_NAME));
  await rateLimitCounter.init();

  const clients = createClients(config, (service, state) => logger.warn({ service, breaker: state }, 'circuit breaker changed'));
  const shutdown = new GracefulShutdown(config.SHUTDOWN_DRAIN_MS);
  const app = buildApp({
    config,
    shutdown,
    clients,
    idempotency,
    rateLimitCounter,
    logger: { level: config.LOG_LEVEL, name: 'gateway', redact: REDACT },
    ready: async () => {
      await mongo.db(config.GATEWAY_DB_NAME).command({ ping: 1 });
      await clients.accounts.authenticate({ key_hash: '0'.repeat(64) }, { timeoutMs: 2_000 }).catch((error: { code?: string }) => {
        if (error.code !== 'INVALID_API_KEY') throw error;
      });
      // A static list with no storage behind it: answers as soon as the webhook service serves.
      await clients.webhooks.listEventTypes({ page: { limit: 1, after: undefined } }, { timeoutMs: 2_000 });
      return true;
    },
  });
  await app.listen({ host: config.HOST, port: config.PORT, backlog: config.HTTP_LISTEN_BACKLOG });
  logger.info({ port: config.PORT, metrics: metrics?.port }, 'gateway listening');

  onShutdown(
    logger,
    [
      { name: 'http', run: () => shutdown.run(app) },
      { name: 'grpc clients', run: () => closeClients(clients) },
      { name: 'mongo', run: () => mongo.close() },
      { name: 'telemetry', run: () => stopTelemetry() },
    ],
    // The drain, then a request accepted just before the close may take its whole budget, then the rest.
    config.SHUTDOWN_DRAIN_MS + config.REQUEST_TIMEOUT_MS + 5_000,
  );
}

main().catch((error: unknown) => {
  console.error(startFailure('gateway', error));
  process.exit(1);
});
