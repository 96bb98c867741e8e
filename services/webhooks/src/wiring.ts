import type { Logger, Storage } from '@crm/shared';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { WebhooksConfig } from './config';
import { createSecretBox } from './delivery/secret-box';
import { buildKeyring } from './delivery/secret-keyring';
import { AttemptRecorder } from './domain/attempt-recorder';
import { ManualAttemptGate } from './domain/manual-attempt-gate';
import type { WebhookDeps } from './domain/deps';
import { SubscriptionCache } from './domain/subscription-cache';
import { createDeliveryRepository } from './repository/delivery.repository';
import { createEventStoreRepository } from './repository/event-store.repository';
import { createReplayRepository } from './repository/replay.repository';
import { createWebhookRepository } from './repository/webhook.repository';

/** What the worker is told about from the domain: deliveries to send, and subscriptions just paused. */
export interface WorkerHooks {
  deliveriesQueued: WebhookDeps['deliveriesQueued'];
  replaysQueued: WebhookDeps['replaysQueued'];
  paused: (orgId: string, webhookId: string) => void;
}

/** Builds the repositories, the recorder and the delivery settings over one connection. */
export function createDeps(db: Storage, config: WebhooksConfig, logger: Logger, hooks: WorkerHooks): WebhookDeps {
  const { keyring, devKey } = buildKeyring({
    key: config.WEBHOOK_SECRETS_KEY,
    keyId: config.WEBHOOK_SECRETS_KEY_ID,
    oldKeys: config.WEBHOOK_SECRETS_OLD_KEYS,
  });
  if (devKey) {
    logger.warn(
      'WEBHOOK_SECRETS_KEY is not set: webhook secrets are encrypted with the PUBLIC development key. Set a key of your own (openssl rand -base64 32) anywhere but on a laptop; production refuses to start without one.',
    );
  }
  // Test sends and redeliveries never wait longer than an event delivery's attempt.
  const manualTimeoutMs = Math.min(config.WEBHOOK_MANUAL_TIMEOUT_MS, config.WEBHOOK_TIMEOUT_MS);
  const webhooks = createWebhookRepository(db, createSecretBox(keyring));
  const deliveries = createDeliveryRepository(db);
  // Unique per process: a restarted replica must not inherit the leases of the one that died.
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const subscriptions = new SubscriptionCache(webhooks);
  const recorder = new AttemptRecorder({
    deliveries,
    webhooks,
    owner,
    pauseAfterFailures: config.WEBHOOK_PAUSE_AFTER_FAILURES,
    logger,
    onPaused: (orgId, webhookId) => {
      subscriptions.forget(webhookId);
      hooks.paused(orgId, webhookId);
    },
  });
  return {
    webhooks,
    deliveries,
    events: createEventStoreRepository(db),
    replays: createReplayRepository(db),
    settings: {
      allowList: config.WEBHOOK_ALLOWED_HOSTS,
      scheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      pauseAfterFailures: config.WEBHOOK_PAUSE_AFTER_FAILURES,
      leaseMs: config.WEBHOOK_LEASE_MS,
      retentionMs: config.WEBHOOK_RETENTION_DAYS * 86_400_000,
      rotationOverlapHours: config.WEBHOOK_ROTATION_OVERLAP_HOURS,
      maxSubscriptions: config.WEBHOOK_MAX_SUBSCRIPTIONS,
      manualTimeoutMs,
      eventRetentionMs: config.EVENTS_RETENTION_DAYS * 86_400_000,
    },
    manualAttempts: new ManualAttemptGate({
      perOrganization: config.WEBHOOK_MANUAL_CONCURRENCY,
      attemptTimeoutMs: manualTimeoutMs,
    }),
    owner,
    recorder,
    subscriptions,
    deliveriesQueued: hooks.deliveriesQueued,
    replaysQueued: hooks.replaysQueued,
    now: () => new Date(),
    logger,
  };
}
