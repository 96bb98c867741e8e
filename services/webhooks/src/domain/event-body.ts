import { newId } from '@crm/shared';
import type { DeliveryRecord } from '../repository/delivery.repository';
import type { WebhookRecord } from '../repository/webhook.repository';

const RETENTION_FALLBACK_MS = 15 * 24 * 3_600_000;

/**
 * The delivered body, serialized once and stored: every attempt and redelivery sends (and signs) these exact bytes.
 * The organization id stays internal.
 */
export function eventBody(event: { id: string; type: string; created_at: string; data: unknown }): string {
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.created_at, api_version: 'v1', data: event.data });
}

export interface NewDelivery {
  webhook: WebhookRecord;
  eventId: string;
  eventType: string;
  body: string;
  now: Date;
  retentionMs?: number;
  /** Set for deliveries made from Kafka: the key that makes a re-consumed event insert nothing. */
  fromStream?: boolean;
  isTest?: boolean;
  redeliveryOf?: string | null;
  trace?: Record<string, string>;
  /** Inline attempts (test, redeliver) are leased to the caller from the start, so no worker picks them up. */
  lease?: { owner: string; until: Date };
}

export function newDelivery(input: NewDelivery): DeliveryRecord {
  const id = newId('delivery');
  return {
    id,
    org_id: input.webhook.org_id,
    webhook_id: input.webhook.id,
    event_id: input.eventId,
    event_type: input.eventType,
    status: 'pending',
    attempt: 0,
    response_status: null,
    response_excerpt: null,
    error: null,
    duration_ms: null,
    next_attempt_at: input.now,
    redelivery_of: input.redeliveryOf ?? null,
    is_test: input.isTest ?? false,
    created_at: input.now,
    completed_at: null,
    attempts: [],
    request_body: input.body,
    request_headers: {},
    expires_at: new Date(input.now.getTime() + (input.retentionMs ?? RETENTION_FALLBACK_MS)),
    dedup_key: input.fromStream ? `${input.webhook.id}:${input.eventId}` : id,
    lease_until: input.lease?.until ?? null,
    lease_owner: input.lease?.owner ?? null,
    trace: input.trace ?? {},
  };
}
