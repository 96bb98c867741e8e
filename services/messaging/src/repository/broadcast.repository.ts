import { type OutboxEntry, type PageRequest, RevisionedRecords, type Storage, type StoreFilter, TtlCache } from '@crm/shared';
import type { BroadcastStatus, SendProfile } from '@crm/shared/schemas';
import { Schema } from 'mongoose';
import { latestDateWrites } from './latest-date-writes';

export interface BroadcastAudience {
  type: 'all' | 'tags' | 'contacts';
  tags: string[];
  tags_operator: 'or' | 'and' | null;
  contact_ids: string[];
  has_chatapp: boolean | null;
  filters: { source: string | null; created_after: string | null; created_before: string | null; exclude_tags: string[] } | null;
}

export interface BroadcastTemplateVariable {
  key: string;
  component: string;
  source_type: 'contact_field' | 'static';
  source_key: string | null;
  fallback: string | null;
  value: string | null;
}

export interface BroadcastTemplate {
  template_id: string;
  name: string;
  language: string;
  category: string;
  variables: BroadcastTemplateVariable[];
}

export interface BroadcastStats {
  total: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  excluded: number;
}

export interface BroadcastRecord {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  status: BroadcastStatus;
  instances: Array<{ id: string; name: string; channel: 'qrcode' | 'official' }>;
  audience: BroadcastAudience;
  message: { type: string; content: string | null; media_url: string | null } | null;
  cloud_template: BroadcastTemplate | null;
  settings: { send_profile: SendProfile };
  scheduled_at: Date | null;
  started_at: Date | null;
  completed_at: Date | null;
  stats: BroadcastStats;
  error: { code: string; message: string } | null;
  /** `confirmWarmupOverride` of the launch or schedule that started it (a scheduled launch checks again). */
  warmup_override: boolean;
  /** Set once every recipient is written (status pending or excluded). */
  materialized: boolean;
  /** When a recipient last changed, and when `stats` were last counted: stats are counted again when stale. */
  recipients_changed_at: Date | null;
  stats_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const EMPTY_STATS: BroadcastStats = { total: 0, sent: 0, delivered: 0, read: 0, failed: 0, excluded: 0 };

const schema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, default: null },
    status: { type: String, required: true },
    instances: { type: [Object], default: [] },
    audience: { type: Object, required: true },
    message: { type: Object, default: null },
    cloud_template: { type: Object, default: null },
    settings: { type: Object, required: true },
    scheduled_at: { type: Date, default: null },
    started_at: { type: Date, default: null },
    completed_at: { type: Date, default: null },
    stats: { type: Object, required: true },
    error: { type: Object, default: null },
    warmup_override: { type: Boolean, default: false },
    materialized: { type: Boolean, default: false },
    recipients_changed_at: { type: Date, default: null },
    stats_at: { type: Date, default: null },
    // Internal: the replica building the recipient list holds it until then (a crashed replica's lease expires).
    materialize_lease_until: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'broadcasts', minimize: false },
);
schema.index({ org_id: 1, created_at: -1, _id: -1 });
// The scheduler's and the recipient builder's queries: few broadcasts are ever in these statuses at once.
schema.index({ status: 1, scheduled_at: 1 });

export interface BroadcastQuery extends PageRequest {
  status?: string | null;
  created_after?: string | null;
  created_before?: string | null;
}

export type BroadcastRepository = ReturnType<typeof createBroadcastRepository>;

export function createBroadcastRepository(storage: Storage) {
  const broadcasts = new RevisionedRecords<BroadcastRecord>(storage, {
    model: 'Broadcast',
    schema,
    what: 'broadcast',
    internal: ['materialize_lease_until'],
    // broadcast.started, broadcast.completed and broadcast.failed are written with the transitions that cause them.
    outbox: true,
  });
  const Broadcast = broadcasts.model;
  const totals = new TtlCache<number>(2_000);

  return {
    collection: broadcasts.collection,

    async insert(record: BroadcastRecord) {
      const stored = await broadcasts.insert(record);
      totals.invalidate(record.org_id);
      return stored;
    },

    getById: (orgId: string, id: string) => broadcasts.findOne({ _id: id, org_id: orgId }),

    /** For the sender, which works across organizations. */
    getAnyOrg: (id: string) => broadcasts.findOne({ _id: id }),

    countAll: (orgId: string) => totals.get(orgId, () => broadcasts.count({ org_id: orgId })),

    list(orgId: string, query: BroadcastQuery) {
      const conditions: StoreFilter[] = [{ org_id: orgId }];
      if (query.status) conditions.push({ status: query.status });
      if (query.created_after) conditions.push({ created_at: { $gte: new Date(query.created_after) } });
      if (query.created_before) conditions.push({ created_at: { $lt: new Date(query.created_before) } });
      return broadcasts.listPage(conditions, { field: 'created_at', order: 'desc', type: 'date' }, query);
    },

    /**
     * Changes a broadcast when it is still in one of `from` (and, with `rev`, unchanged since it was read): every
     * transition is one conditional update, so two replicas or two requests never both apply one, nor both raise
     * its events.
     */
    transition(id: string, from: readonly BroadcastStatus[], set: Partial<BroadcastRecord>, rev?: number, events: OutboxEntry[] = []) {
      return broadcasts.update({ _id: id, status: { $in: [...from] }, ...(rev === undefined ? {} : { rev }) }, set, { events });
    },

    async delete(orgId: string, id: string, from: readonly BroadcastStatus[]): Promise<boolean> {
      const result = await Broadcast.deleteOne({ _id: id, org_id: orgId, status: { $in: [...from] } });
      if (result.deletedCount > 0) totals.invalidate(orgId);
      return result.deletedCount > 0;
    },

    /**
     * A recipient changed (sent, failed, delivered, read): the stored stats are stale from `at` on. Notes of one
     * broadcast asked while one is being written share the next write (settled once it is stored).
     */
    noteRecipientChange: latestDateWrites(async (id, at) => {
      await Broadcast.updateOne({ _id: id }, { $max: { recipients_changed_at: at } });
    }),

    /**
     * Stores stats counted from the recipients as they were at `countedAt`, unless stats counted later are
     * already stored: two replicas counting at once never put the older count last.
     */
    async saveStats(id: string, stats: BroadcastStats, countedAt: Date): Promise<void> {
      await Broadcast.updateOne(
        { _id: id, $or: [{ stats_at: null }, { stats_at: { $lt: countedAt } }] },
        { $set: { stats, stats_at: countedAt } },
      );
    },

    /** Scheduled broadcasts whose time has come. */
    dueScheduled: (now: Date, limit: number) =>
      broadcasts.findMany({ status: 'scheduled', scheduled_at: { $lte: now } }, { sort: { scheduled_at: 1 }, limit }),

    async nextScheduledAt(): Promise<Date | null> {
      return (await broadcasts.findOne({ status: 'scheduled' }, { scheduled_at: 1 }))?.scheduled_at ?? null;
    },

    /** True while some broadcast's recipient list is being written (its builder may die and leave it to others). */
    async anyBuilding(): Promise<boolean> {
      return (await Broadcast.exists({ status: 'processing', materialized: false })) !== null;
    },

    /** Broadcasts that wait for their recipient list, or whose builder died (its lease expired). */
    awaitingRecipients: (now: Date, limit: number) =>
      broadcasts.findMany(
        { status: 'processing', materialized: false, $or: [{ materialize_lease_until: null }, { materialize_lease_until: { $lt: now } }] },
        { limit },
      ),

    /** Takes or renews the right to build the recipient list until `until`; false when another replica holds it. */
    async leaseMaterialization(id: string, now: Date, until: Date, renew: boolean): Promise<boolean> {
      const lease = renew
        ? { materialize_lease_until: { $gte: now } }
        : { $or: [{ materialize_lease_until: null }, { materialize_lease_until: { $lt: now } }] };
      const result = await Broadcast.updateOne(
        { _id: id, status: { $in: ['processing', 'paused'] }, materialized: false, ...lease },
        { $set: { materialize_lease_until: until } },
      );
      return result.modifiedCount > 0;
    },

    /** The recipient list is complete: its totals, and `sending` unless the broadcast was paused or cancelled meanwhile. */
    async finishMaterialization(id: string, stats: BroadcastStats, now: Date) {
      await broadcasts.update(
        { _id: id, materialized: false },
        { $set: { materialized: true, materialize_lease_until: null, stats, stats_at: now } },
      );
      return broadcasts.update({ _id: id, status: 'processing' }, { status: 'sending', updated_at: now });
    },
  };
}
