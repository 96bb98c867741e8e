import { isoOrNull, iso, type Nullable } from '@crm/shared';
import type { Webhook } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { Backlog } from '../repository/delivery.repository';
import type { WebhookRecord } from '../repository/webhook.repository';

/**
 * The public Webhook, with its backlog (undelivered deliveries and the age of the oldest: its lag); the secret
 * only when the caller may see it (create and rotate).
 */
export function viewWebhook(
  record: WebhookRecord,
  options: { withSecret?: boolean; now?: Date; backlog?: Backlog } = {},
): Nullable<Webhook> {
  const now = options.now ?? new Date();
  const overlapActive = record.previous_secret_expires_at !== null && record.previous_secret_expires_at > now;
  return {
    id: record.id,
    name: record.name,
    url: record.url,
    events: record.events,
    secret: options.withSecret ? record.secret : null,
    status: record.status,
    consecutive_failures: record.consecutive_failures,
    last_delivery_at: isoOrNull(record.last_delivery_at),
    last_failure_at: isoOrNull(record.last_failure_at),
    last_failure_reason: record.last_failure_reason,
    paused_reason: record.status === 'paused' ? (record.paused_reason ?? 'manual') : null,
    key_id: record.key_id ?? null,
    previous_secret_expires_at: overlapActive ? isoOrNull(record.previous_secret_expires_at) : null,
    created_at: iso(record.created_at),
    updated_at: iso(record.updated_at),
    pending_deliveries: options.backlog?.pending ?? 0,
    lag_seconds: options.backlog ? Math.max(0, (now.getTime() - options.backlog.oldest.getTime()) / 1000) : null,
  };
}

/** Secrets that sign a delivery now, newest first: the current one, plus the replaced one during its overlap. */
export function signingSecrets(record: WebhookRecord, now: Date): string[] {
  const overlapActive =
    record.previous_secret !== null && record.previous_secret_expires_at !== null && record.previous_secret_expires_at > now;
  return overlapActive && record.previous_secret ? [record.secret, record.previous_secret] : [record.secret];
}
