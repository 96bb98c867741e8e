import { groupBy, RecordStore, type Storage } from '@crm/shared';
import { Schema } from 'mongoose';
import type { AttemptRecord, DeliveryRecord } from './delivery.record';

/**
 * One attempt as logged: what the public attempt shows, and what the delivery shows of its latest attempt (the
 * headers sent, when it finished). Insert-only: recording a batch of attempts is one insert of their entries and
 * one update per group of deliveries that moved alike (delivery-queue.ts), not one update statement per delivery.
 */
export interface AttemptLogEntry extends AttemptRecord {
  /** `<delivery id>:<attempt>:<attempted at, ms>`: a retried write of the same entry stores nothing twice. */
  id: string;
  delivery_id: string;
  org_id: string;
  webhook_id: string;
  request_headers: Record<string, string>;
  /** Set when this attempt finished the delivery (succeeded, or failed for good). */
  completed_at: Date | null;
  /** The delivery's retention: both go at the same time. */
  expires_at: Date;
}

const attemptLogSchema = new Schema(
  {
    _id: { type: String, required: true },
    delivery_id: { type: String, required: true },
    org_id: { type: String, required: true },
    webhook_id: { type: String, required: true },
    attempt: { type: Number, required: true },
    attempted_at: { type: Date, required: true },
    response_status: { type: Number, default: null },
    error: { type: String, default: null },
    duration_ms: { type: Number, required: true },
    response_excerpt: { type: String, default: null },
    request_headers: { type: Schema.Types.Mixed, default: {} },
    completed_at: { type: Date, default: null },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'delivery_attempts', minimize: false },
);
attemptLogSchema.index({ delivery_id: 1 });
attemptLogSchema.index({ org_id: 1, webhook_id: 1 });
attemptLogSchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

export const attemptLogId = (deliveryId: string, attempt: AttemptRecord) =>
  `${deliveryId}:${attempt.attempt}:${new Date(attempt.attempted_at).getTime()}`;

export type AttemptLog = ReturnType<typeof createAttemptLog>;

export function createAttemptLog(storage: Storage) {
  const entries = new RecordStore<AttemptLogEntry>(storage, { model: 'DeliveryAttempt', schema: attemptLogSchema, what: 'attempt' });

  return {
    /** Appends entries in one round trip; an entry already logged (a retried write) is left as it is. */
    append: async (log: AttemptLogEntry[]): Promise<void> => void (await entries.insertManyNew(log)),

    /**
     * The deliveries of an organization as the API shows them: each with its logged attempts after those stored in
     * the delivery itself (deliveries recorded before the log existed), and the fields of its latest attempt. One
     * query for the whole page; deliveries never attempted are not looked up.
     */
    async joinTo(orgId: string, deliveries: DeliveryRecord[]): Promise<DeliveryRecord[]> {
      const attempted = deliveries.filter((delivery) => delivery.attempt > delivery.attempts.length).map((delivery) => delivery.id);
      if (attempted.length === 0) return deliveries;
      const logged = await entries.findMany({ delivery_id: { $in: attempted }, org_id: orgId }, { sort: { attempt: 1, attempted_at: 1 } });
      const byDelivery = groupBy(logged, (entry) => entry.delivery_id);
      return deliveries.map((delivery) => withLog(delivery, byDelivery.get(delivery.id) ?? []));
    },

    async deleteForWebhook(orgId: string, webhookId: string): Promise<void> {
      await entries.model.deleteMany({ org_id: orgId, webhook_id: webhookId });
    },
  };
}

function withLog(delivery: DeliveryRecord, log: AttemptLogEntry[]): DeliveryRecord {
  const latest = log.at(-1);
  if (!latest) return delivery;
  const attempts = log.map(({ attempt, attempted_at, response_status, error, duration_ms, response_excerpt }): AttemptRecord => ({
    attempt,
    attempted_at,
    response_status,
    error,
    duration_ms,
    response_excerpt,
  }));
  return {
    ...delivery,
    attempts: [...delivery.attempts, ...attempts],
    response_status: latest.response_status,
    response_excerpt: latest.response_excerpt,
    error: latest.error,
    duration_ms: latest.duration_ms,
    completed_at: latest.completed_at,
    request_headers: latest.request_headers,
  };
}
