import { iso, isoOrNull, type Nullable } from '@crm/shared';
import type { Delivery, DeliveryDetail } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { DeliveryRecord } from '../repository/delivery.repository';

/** The public WebhookDelivery (catalogue §3), plus the list of its attempts. */
export function viewDelivery(record: DeliveryRecord): Nullable<Delivery> {
  return {
    id: record.id,
    webhook_id: record.webhook_id,
    event_id: record.event_id,
    event_type: record.event_type,
    status: record.status,
    attempt: record.attempt,
    response_status: record.response_status,
    response_excerpt: record.response_excerpt,
    error: record.error,
    duration_ms: record.duration_ms,
    next_retry_at: record.status === 'pending' ? isoOrNull(record.next_attempt_at) : null,
    redelivery_of: record.redelivery_of,
    is_test: record.is_test,
    created_at: iso(record.created_at),
    completed_at: isoOrNull(record.completed_at),
    attempts: record.attempts.map((attempt) => ({ ...attempt, attempted_at: iso(new Date(attempt.attempted_at)) })),
  };
}

export function viewDeliveryDetail(record: DeliveryRecord): Nullable<DeliveryDetail> {
  return { delivery: viewDelivery(record), request_headers: record.request_headers, request_body: record.request_body };
}
