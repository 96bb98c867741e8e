import type { ServiceDefinition } from '@crm/shared/service';
import type { WebhooksConfig } from './config';
import type { WebhookDeps } from './domain/deps';
import { sealStoredSecrets } from './domain/seal-stored-secrets';
import { startEventConsumer } from './events/event-consumer';
import { webhooksGrpcServices } from './server';
import { createDeps } from './wiring';
import { DeliveryWorker } from './worker/delivery-worker';

/** The webhook service as the shared bootstrap runs it (main.ts). */
export function webhooksService(config: WebhooksConfig): ServiceDefinition<WebhooksConfig, WebhookDeps> {
  // The consumer and the reactivation path hand deliveries to this replica's worker through deps.
  let worker: DeliveryWorker | undefined;
  return {
    database: { name: config.WEBHOOKS_DB_NAME },
    deps: (storage, logger) => createDeps(storage, config, logger, (leased) => (leased ? worker?.accept(leased) : worker?.nudge())),
    grpc: ({ deps, logger }) => ({
      host: config.WEBHOOKS_GRPC_HOST,
      port: config.WEBHOOKS_GRPC_PORT,
      services: webhooksGrpcServices(deps, logger),
    }),
    prepare: async ({ deps }) => {
      await sealStoredSecrets(deps);
    },
    workers: ({ deps }) => ({
      'delivery worker': (worker = new DeliveryWorker({
        deps,
        concurrency: config.WEBHOOK_WORKER_CONCURRENCY,
        idleCheckMs: config.WEBHOOK_IDLE_CHECK_MS,
      })),
    }),
    consumers: ({ deps, bus }) => ({
      'event fan-out': {
        start: () => startEventConsumer(deps, bus, { groupId: config.WEBHOOK_CONSUMER_GROUP, topic: config.EVENTS_TOPIC }),
      },
    }),
  };
}
