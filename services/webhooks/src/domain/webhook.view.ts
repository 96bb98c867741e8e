import { isoOrNull, iso, type Nullable } from '@crm/shared';
import type { Webhook } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { WebhookRecord } from '../repository/webhook.repository';

/** The public Webhook; the secret only when the caller may see it (create and rotate). */
export function viewWebhook(record: WebhookRecord, options: { withSecret?: boolean; now?: Date } = {}): Nullable<Webhook> {
  const overlapActive = record.previous_secret_expires_at !== null && record.previous_secret_expires_at > (options.now ?? new Date());
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
    previous_secret_expires_at: overlapActive ? isoOrNull(record.previous_secret_expires_at) : null,
    created_at: iso(record.created_at),
    updated_at: iso(record.updated_at),
  };
}

/** Secrets that sign a delivery now, newest first: the current one, plus the replaced one during its overlap. */
export function signingSecrets(record: WebhookRecord, now: Date): string[] {
  const overlapActive =
    record.previous_secret !== null && record.previous_secret_expires_at !== null && record.previous_secret_expires_at > now;
  return overlapActive && record.previous_secret ? [record.secret, record.previous_secret] : [record.secret];
}
