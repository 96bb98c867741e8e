/** The stored shape of a delivery and its attempts (the repository and the worker's queue methods share it). */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface AttemptRecord {
  attempt: number;
  attempted_at: Date;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  response_excerpt: string | null;
}

export interface DeliveryRecord {
  id: string;
  org_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  /** Attempts made so far. */
  attempt: number;
  response_status: number | null;
  response_excerpt: string | null;
  error: string | null;
  duration_ms: number | null;
  /** When the next attempt is due; null once done, or while held because the subscription is paused. */
  next_attempt_at: Date | null;
  redelivery_of: string | null;
  is_test: boolean;
  created_at: Date;
  completed_at: Date | null;
  attempts: AttemptRecord[];
  /** The exact bytes that are signed and sent at every attempt. */
  request_body: string;
  /** Headers of the last attempt. */
  request_headers: Record<string, string>;
  /** Retention: the server deletes the delivery at this time (a TTL index). */
  expires_at: Date;
  /**
   * `<webhook_id>:<event_id>` for deliveries made from Kafka, so a re-consumed event inserts nothing; the delivery's
   * own id for tests and redeliveries, which repeat an event on purpose.
   */
  dedup_key: string;
  lease_until: Date | null;
  lease_owner: string | null;
  /** W3C trace context of the write that caused the event, so the delivery joins its trace. */
  trace: Record<string, string>;
}
