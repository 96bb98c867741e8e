import { DueScheduler } from '@crm/shared';
import type { ServiceDefinition } from '@crm/shared/service';
import { observeLanes } from './broadcasts/broadcast-metrics';
import { BroadcastSender } from './broadcasts/sender';
import type { MessagingConfig } from './config';
import type { MessagingDeps } from './domain/deps';
import { windowExpiry } from './domain/window-expiry';
import { contactMergeConsumer } from './events/contact-merge-consumer';
import { startCallbackServer, type CallbackServer } from './http/callback-server';
import { messagingGrpcServices } from './server';
import { createDeps } from './wiring';

/** The messaging service as the shared bootstrap runs it (main.ts). */
export function messagingService(config: MessagingConfig): ServiceDefinition<MessagingConfig, MessagingDeps & { close(): void }> {
  // A launch or a resume served here wakes this replica's sender at once (wiring.ts wakeBroadcasts).
  let sender: BroadcastSender | undefined;
  let windows: DueScheduler | undefined;
  let callbacks: CallbackServer | undefined;
  return {
    // A message and its conversation change are stored in one transaction (a replica set; SecantusDB is one).
    database: { name: config.MESSAGING_DB_NAME, requires: ['transactions'] },
    deps: (storage, logger) =>
      createDeps(
        storage,
        config,
        logger,
        () => sender?.wake(),
        (at) => windows?.wake(at),
      ),
    grpc: ({ deps, logger }) => ({
      host: config.MESSAGING_GRPC_HOST,
      port: config.MESSAGING_GRPC_PORT,
      services: messagingGrpcServices(deps, logger),
    }),
    prepare: async ({ deps }) => observeLanes(deps.broadcasts.lanes.collection),
    workers: ({ deps, logger }) => ({
      ...(config.BROADCAST_SENDER_ENABLED ? { 'broadcast sender': (sender = new BroadcastSender(deps)) } : {}),
      // conversation.window.expired: any replica may fire a window's end; each end fires once.
      'window expiry': (windows = new DueScheduler({
        name: 'window expiry',
        work: windowExpiry(deps),
        idleCheckMs: config.MESSAGING_SCHEDULER_IDLE_MS,
        logger,
      })),
    }),
    consumers: ({ deps, bus, logger }) => ({
      'contact merges': contactMergeConsumer(deps, bus, { groupId: config.MESSAGING_CONSUMER_GROUP, topic: config.EVENTS_TOPIC, logger }),
    }),
    listeners: ({ deps, logger }) => ({
      'provider callbacks': {
        start: async () => {
          const options = {
            host: config.MESSAGING_HTTP_HOST,
            port: config.MESSAGING_HTTP_PORT,
            secret: config.PROVIDER_CALLBACK_SECRET,
            toleranceSeconds: config.CALLBACK_TOLERANCE_SECONDS,
            maxBodyBytes: config.CALLBACK_MAX_BODY_BYTES,
            headersTimeoutMs: config.CALLBACK_HEADERS_TIMEOUT_MS,
            requestTimeoutMs: config.CALLBACK_REQUEST_TIMEOUT_MS,
          };
          callbacks = await startCallbackServer(deps, options);
          logger.info({ port: callbacks.port }, 'provider callbacks listening');
        },
        stop: () => callbacks?.stop(),
      },
    }),
    close: (deps) => deps.close(),
  };
}
