import type { Logger } from '@crm/shared';
import type { Connection } from 'mongoose';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { WebhooksConfig } from './config';
import type { WebhookDeps } from './domain/deps';
import { createDeliveryRepository } from './repository/delivery.repository';
import { createWebhookRepository } from './repository/webhook.repository';

/** Builds the repositories and the delivery settings over one connection. */
export function createDeps(
  db: Connection,
  config: WebhooksConfig,
  logger: Logger,
  deliveriesQueued: WebhookDeps['deliveriesQueued'],
): WebhookDeps {
  return {
    webhooks: createWebhookRepository(db),
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
