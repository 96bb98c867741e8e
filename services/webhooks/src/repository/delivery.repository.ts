import { type PageRequest, RecordStore, type Storage, type StoreFilter } from '@crm/shared';
import { Schema, type PipelineStage } from 'mongoose';
import { createAttemptLog } from './attempt-log';
import type { DeliveryRecord } from './delivery.record';
import { deliveryQueueMethods } from './delivery-queue';

export type { AttemptRecord, DeliveryRecord, DeliveryStatus } from './delivery.record';

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
// Per subscription: its oldest undelivered event (the lag) and the count of those pending.
deliverySchema.index({ webhook_id: 1, status: 1, created_at: 1 });
deliverySchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

export interface DeliveryQuery extends PageRequest {
  status?: string | null;
  event_type?: string | null;
  created_after?: string | null;
}

/** Undelivered deliveries of one subscription (pending: on their first attempt, retrying or held). */
export interface Backlog {
  orgId: string;
  pending: number;
  /** When the oldest of them was created: now minus this is the subscription's lag. */
  oldest: Date;
}

export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;

export function createDeliveryRepository(storage: Storage) {
  const deliveries = new RecordStore<DeliveryRecord>(storage, { model: 'Delivery', schema: deliverySchema, what: 'delivery' });
  const Delivery = deliveries.model;
  const attemptLog = createAttemptLog(storage);

  return {
    ...deliveryQueueMethods(deliveries, attemptLog),

    /** A delivery as the API shows it, its attempts included. */
    async getById(orgId: string, id: string): Promise<DeliveryRecord | null> {
      const record = await deliveries.findOne({ _id: id, org_id: orgId });
      return record && ((await attemptLog.joinTo(orgId, [record]))[0] ?? null);
    },

    countForWebhook: (orgId: string, webhookId: string) => deliveries.count({ org_id: orgId, webhook_id: webhookId }),

    /**
     * A replay's deliveries (dedup key `replay:<replay id>:<event id>`) by status: three counts on the unique index.
     * The id is base62, so the prefix needs no escaping. The pending ones first: a delivery finishing between two
     * counts is then counted as pending or as finished, never in neither (counted together, a delivery could pass
     * from pending to succeeded after the succeeded count and before the pending one, and the replay completed
     * short of it); a replay with none pending has only finished deliveries, which the counts after see as they are.
     */
    async replayCounts(orgId: string, webhookId: string, replayId: string): Promise<Record<'pending' | 'succeeded' | 'failed', number>> {
      const of = (status: string) =>
        deliveries.count({ dedup_key: { $regex: `^replay:${replayId}:` }, org_id: orgId, webhook_id: webhookId, status });
      const pending = await of('pending');
      const [succeeded, failed] = await Promise.all([of('succeeded'), of('failed')]);
      return { pending, succeeded, failed };
    },

    async list(orgId: string, webhookId: string, query: DeliveryQuery) {
      const conditions: StoreFilter[] = [{ org_id: orgId, webhook_id: webhookId }];
      if (query.status) conditions.push({ status: query.status });
      if (query.event_type) conditions.push({ event_type: query.event_type });
      if (query.created_after) conditions.push({ created_at: { $gte: new Date(query.created_after) } });
      const page = await deliveries.listPage(conditions, { field: 'created_at', order: 'desc', type: 'date' }, query);
      return { ...page, items: await attemptLog.joinTo(orgId, page.items) };
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
      await attemptLog.deleteForWebhook(orgId, webhookId);
    },

    /** Per subscription of the organization: its undelivered deliveries and the time of the oldest (the lag). */
    async backlogOf(orgId: string, webhookIds: string[]): Promise<Map<string, Backlog>> {
      if (webhookIds.length === 0) return new Map();
      return backlogs([{ $match: { webhook_id: { $in: webhookIds }, status: 'pending', org_id: orgId } }]);
    },

    /** System job: the backlog of every subscription that has one (the lag metric). */
    async backlogs(): Promise<Map<string, Backlog>> {
      return backlogs([{ $match: { status: 'pending', is_test: false } }]);
    },
  };

  async function backlogs(match: PipelineStage[]): Promise<Map<string, Backlog>> {
    const rows = await Delivery.aggregate<{ _id: string; org_id: string; pending: number; oldest: Date }>([
      ...match,
      { $group: { _id: '$webhook_id', org_id: { $first: '$org_id' }, pending: { $sum: 1 }, oldest: { $min: '$created_at' } } },
    ]);
    return new Map(rows.map((row) => [row._id, { orgId: row.org_id, pending: row.pending, oldest: row.oldest }]));
  }
}
