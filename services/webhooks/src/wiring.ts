import type { Logger, Storage } from '@crm/shared';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { WebhooksConfig } from './config';
import { createSecretBox } from './delivery/secret-box';
import { buildKeyring } from './delivery/secret-keyring';
import type { WebhookDeps } from './domain/deps';
import { createDeliveryRepository } from './repository/delivery.repository';
import { createWebhookRepository } from './repository/webhook.repository';

/** Builds the repositories and the delivery settings over one connection. */
export function createDeps(
  db: Storage,
  config: WebhooksConfig,
  logger: Logger,
  deliveriesQueued: WebhookDeps['deliveriesQueued'],
): WebhookDeps {
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
  return {
    webhooks: createWebhookRepository(db, createSecretBox(keyring)),
    deliveries: createDeliveryRepository(db),
    settings: {
      allowList: config.WEBHOOK_ALLOWED_HOSTS,
      scheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      pauseAfterFailures: config.WEBHOOK_PAUSE_AFTER_FAILURES,
      leaseMs: config.WEBHOOK_LEASE_MS,
      retentionMs: config.WEBHOOK_RETENTION_DAYS * 86_400_000,
      rotationOverlapHours: config.WEBHOOK_ROTATION_OVERLAP_HOURS,
    },
    // Unique per process: a restarted replica must not inherit the leases of the one that died.
    owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    deliveriesQueued,
    now: () => new Date(),
    logger,
  };
}
