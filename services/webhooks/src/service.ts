import { AccountServiceService } from '@crm/proto/gen/crm/v1/accounts';
import { callerIdentity, createAsyncClient, DueScheduler } from '@crm/shared';
import type { ServiceDefinition } from '@crm/shared/service';
import type { WebhooksConfig } from './config';
import type { WebhookDeps } from './domain/deps';
import { revokedKeySweeper } from './domain/revoked-key-sweep';
import { sealStoredSecrets } from './domain/seal-stored-secrets';
import { eventFanOut } from './events/event-consumer';
import { webhooksGrpcServices } from './server';
import { createDeps } from './wiring';
import { deliveryWorker } from './worker/delivery-worker';
import { replayWork } from './worker/replay-worker';

/** The webhook service as the shared bootstrap runs it (main.ts). */
export function webhooksService(config: WebhooksConfig): ServiceDefinition<WebhooksConfig, WebhookDeps> {
  // The consumer, the reactivation path and the recorder's pauses reach this replica's worker through deps.
  let worker: ReturnType<typeof deliveryWorker> | undefined;
  let replays: DueScheduler | undefined;
  return {
    database: { name: config.WEBHOOKS_DB_NAME },
    deps: (storage, logger) =>
      createDeps(storage, config, logger, {
        deliveriesQueued: (leased) => (leased ? worker?.dispatcher.accept(leased) : worker?.scanner.nudge()),
        paused: (orgId, webhookId) => worker?.dispatcher.holdEndpoint(orgId, webhookId),
        replaysQueued: () => replays?.wake(),
      }),
    grpc: ({ deps, logger }) => ({
      host: config.WEBHOOKS_GRPC_HOST,
      port: config.WEBHOOKS_GRPC_PORT,
      services: webhooksGrpcServices(deps, logger),
    }),
    prepare: async ({ deps }) => {
      await sealStoredSecrets(deps);
    },
    workers: ({ deps, logger }) => {
      const accounts = createAsyncClient(AccountServiceService, config.CRM_GRPC_URL, 'crm.v1.AccountService', {
        identity: callerIdentity('webhooks', config),
      });
      const inactiveKeys = async (keyIds: string[]) => (await accounts.listInactiveKeys({ key_ids: keyIds })).key_ids;
      const paused = (orgId: string, webhookId: string) => {
        deps.subscriptions.forget(webhookId);
        worker?.dispatcher.holdEndpoint(orgId, webhookId);
      };
      return {
        'delivery worker': (worker = deliveryWorker(deps, config)),
        'revoked-key sweep': revokedKeySweeper(deps, inactiveKeys, paused, config.WEBHOOK_KEY_CHECK_MS),
        // Replays (POST /v1/webhooks/{id}/replay): any replica may run one, and resumes another's after its lease.
        'replay worker': (replays = new DueScheduler({
          name: 'replays',
          work: replayWork(deps),
          idleCheckMs: config.WEBHOOK_IDLE_CHECK_MS,
          logger,
        })),
      };
    },
    consumers: ({ deps, bus }) => ({
      'event fan-out': eventFanOut(deps, bus, { groupId: config.WEBHOOK_CONSUMER_GROUP, topic: config.EVENTS_TOPIC }),
    }),
  };
}
