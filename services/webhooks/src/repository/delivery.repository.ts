import { type PageRequest, RecordStore, type Storage, type StoreFilter } from '@crm/shared';
import { Schema } from 'mongoose';

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

const deliverySchema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    webhook_id: { type: String, required: true },
    event_id: { type: String, required: true },
    event_type: { type: String, required: true },
    status: { type: String, required: true },
    attempt: { type: Number, required: true },
    response_status: { type: Number, default: null },
    response_excerpt: { type: String, default: null },
    error: { type: String, default: null },
    duration_ms: { type: Number, default: null },
    next_attempt_at: { type: Date, default: null },
    redelivery_of: { type: String, default: null },
    is_test: { type: Boolean, required: true },
    created_at: { type: Date, required: true },
    completed_at: { type: Date, default: null },
    attempts: { type: Schema.Types.Mixed, default: () => [] },
    request_body: { type: String, required: true },
    request_headers: { type: Schema.Types.Mixed, default: {} },
    expires_at: { type: Date, required: true },
    dedup_key: { type: String, required: true },
    lease_until: { type: Date, default: null },
    lease_owner: { type: String, default: null },
    trace: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, collection: 'deliveries', minimize: false },
);
deliverySchema.index({ dedup_key: 1 }, { unique: true });
deliverySchema.index({ org_id: 1, webhook_id: 1, created_at: -1, _id: -1 });
// The worker's claim of due attempts and its wake-up times (next due attempt, earliest expiring lease).
deliverySchema.index({ status: 1, next_attempt_at: 1 });
deliverySchema.index({ status: 1, lease_until: 1 });
deliverySchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

export interface DeliveryQuery extends PageRequest {
  status?: string | null;
  event_type?: string | null;
  created_after?: string | null;
}

export interface AttemptUpdate {
  set: Partial<DeliveryRecord>;
  attempt: AttemptRecord;
}

export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;

export function createDeliveryRepository(storage: Storage) {
  const deliveries = new RecordStore<DeliveryRecord>(storage, { model: 'Delivery', schema: deliverySchema, what: 'delivery' });
  const Delivery = deliveries.model;
  const freeLease = (now: Date) => ({ $or: [{ lease_until: null }, { lease_until: { $lt: now } }] });

  return {
    /** False when the delivery already exists (a re-consumed event). */
    insertIfNew: (record: DeliveryRecord) => deliveries.insertIfNew(record),

    getById: (orgId: string, id: string) => deliveries.findOne({ _id: id, org_id: orgId }),

    countForWebhook: (orgId: string, webhookId: string) => deliveries.count({ org_id: orgId, webhook_id: webhookId }),

    list(orgId: string, webhookId: string, query: DeliveryQuery) {
      const conditions: StoreFilter[] = [{ org_id: orgId, webhook_id: webhookId }];
      if (query.status) conditions.push({ status: query.status });
      if (query.event_type) conditions.push({ event_type: query.event_type });
      if (query.created_after) conditions.push({ created_at: { $gte: new Date(query.created_after) } });
      return deliveries.listPage(conditions, { field: 'created_at', order: 'desc', type: 'date' }, query);
    },

    /**
     * System job across organizations: leases up to `limit` due attempts for `owner`. Each lease is a conditional
     * findOneAndUpdate, so of several replicas that saw the same candidate exactly one gets it.
     */
    async claimDue(now: Date, limit: number, leaseMs: number, owner: string): Promise<DeliveryRecord[]> {
      const due = { status: 'pending', next_attempt_at: { $lte: now } };
      const candidates = await Delivery.find({ ...due, ...freeLease(now) }, { _id: 1 })
        .sort({ next_attempt_at: 1 })
        .limit(limit)
        .lean<{ _id: string }[]>();
      const claimed: DeliveryRecord[] = [];
      for (const candidate of candidates) {
        const lease = { lease_until: new Date(now.getTime() + leaseMs), lease_owner: owner };
        const record = await deliveries.update({ _id: candidate._id, ...due, ...freeLease(now) }, lease);
        if (record) claimed.push(record);
      }
      return claimed;
    },

    /**
     * Stores one attempt and releases the lease. Conditional on the lease and the attempt count read at claim time:
     * if the lease was lost (this replica stalled past it), the other replica's record wins and this one is dropped.
     */
    async recordAttempt(
      orgId: string,
      id: string,
      owner: string,
      attemptsBefore: number,
      update: AttemptUpdate,
    ): Promise<DeliveryRecord | null> {
      return deliveries.update(
        { _id: id, org_id: orgId, lease_owner: owner, attempt: attemptsBefore },
        { $set: { ...update.set, lease_until: null, lease_owner: null }, $push: { attempts: update.attempt } },
      );
    },

    /** Parks a due attempt of a paused subscription until it is reactivated. */
    async hold(orgId: string, id: string, owner: string): Promise<void> {
      await Delivery.updateOne(
        { _id: id, org_id: orgId, lease_owner: owner },
        { $set: { next_attempt_at: null, lease_until: null, lease_owner: null } },
      );
    },

    /** Makes the held attempts of a reactivated subscription due now. */
    async resumeHeld(orgId: string, webhookId: string, at: Date): Promise<number> {
      const result = await Delivery.updateMany(
        { org_id: orgId, webhook_id: webhookId, status: 'pending', next_attempt_at: null },
        { $set: { next_attempt_at: at } },
      );
      return result.modifiedCount;
    },

    async deleteForWebhook(orgId: string, webhookId: string): Promise<void> {
      await Delivery.deleteMany({ org_id: orgId, webhook_id: webhookId });
    },

    /**
     * System job across organizations: when the worker has something to do next — the earliest due attempt
     * or expiring lease (a replica that died holding it). Null when nothing is pending.
     */
    async nextWakeAt(): Promise<Date | null> {
      const [due, lease] = await Promise.all([
        Delivery.findOne({ status: 'pending', next_attempt_at: { $ne: null }, lease_until: null }, { next_attempt_at: 1 })
          .sort({ next_attempt_at: 1 })
          .lean<Pick<DeliveryRecord, 'next_attempt_at'>>(),
        Delivery.findOne({ status: 'pending', lease_until: { $ne: null } }, { lease_until: 1 })
          .sort({ lease_until: 1 })
          .lean<Pick<DeliveryRecord, 'lease_until'>>(),
      ]);
      const times = [due?.next_attempt_at, lease?.lease_until]
        .filter((time): time is Date => time instanceof Date)
        .map((time) => time.getTime());
      return times.length > 0 ? new Date(Math.min(...times)) : null;
    },
  };
}
