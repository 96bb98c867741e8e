import { type PageRequest, RecordStore, type Storage, type StoreFilter, approximateTotals } from '@crm/shared';
import { Schema } from 'mongoose';

/** One consumed event, kept for GET /v1/events and replays. `body` is the exact body webhooks receive. */
export interface StoredEventRecord {
  /** The event id (evt_…): a re-consumed event is stored once. */
  id: string;
  org_id: string;
  type: string;
  /** The records the event is about (data.object.id, a note and its deal, a tagged contact…): the object_id filter. */
  object_ids: string[];
  /** The public id of the API request that caused it; null for platform events. */
  request_id: string | null;
  created_at: Date;
  body: string;
  /** The TTL index deletes the event then (EVENTS_RETENTION_DAYS after created_at). */
  expires_at: Date;
}

const storedEventSchema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    type: { type: String, required: true },
    object_ids: { type: [String], default: [] },
    request_id: { type: String, default: null },
    created_at: { type: Date, required: true },
    body: { type: String, required: true },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'events' },
);
// Newest first per organization, and the same order within one kind or one record (the two selective filters).
storedEventSchema.index({ org_id: 1, created_at: -1, _id: -1 });
storedEventSchema.index({ org_id: 1, type: 1, created_at: -1, _id: -1 });
storedEventSchema.index({ org_id: 1, object_ids: 1, created_at: -1, _id: -1 });
storedEventSchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

export interface EventQuery extends PageRequest {
  types: string[];
  created_after: string | null;
  created_before: string | null;
  object_id: string | null;
}

/** A replay's window: events of [since, until) of some kinds, oldest first from a position (created_at, id). */
export interface ReplayWindow {
  since: Date;
  until: Date;
  types: string[];
  after: { created_at: Date; id: string } | null;
}

export type EventStoreRepository = ReturnType<typeof createEventStoreRepository>;

export function createEventStoreRepository(storage: Storage) {
  const events = new RecordStore<StoredEventRecord>(storage, { model: 'StoredEvent', schema: storedEventSchema, what: 'event' });
  // meta.total may be approximate (spec §8): seconds old, longer for large organizations (approximate-totals.ts).
  const totals = approximateTotals();
  return {
    /** Stores a batch of consumed events in one round trip; those stored before are skipped. */
    store: (records: StoredEventRecord[]) => events.insertManyNew(records),

    getById: (orgId: string, id: string) => events.findOne({ _id: id, org_id: orgId }),

    countForOrg: (orgId: string) => totals.get(orgId, () => events.count({ org_id: orgId })),

    list: (orgId: string, query: EventQuery) =>
      events.listPage([{ org_id: orgId }, ...filtersOf(query)], { field: 'created_at', order: 'desc', type: 'date' }, query),

    /** The next `limit` events of a replay window, oldest first, after its position. */
    replayPage(orgId: string, window: ReplayWindow, limit: number) {
      const after = window.after;
      const position: StoreFilter = after
        ? { $or: [{ created_at: { $gt: after.created_at } }, { created_at: after.created_at, _id: { $gt: after.id } }] }
        : {};
      const filter: StoreFilter = {
        org_id: orgId,
        created_at: { $gte: window.since, $lt: window.until },
        ...(window.types.length > 0 ? { type: { $in: window.types } } : {}),
        ...position,
      };
      return events.findMany(filter, { sort: { created_at: 1, _id: 1 }, limit });
    },

    /** How many events a replay window holds (its `matched` count before the subscription's filter). */
    countWindow: (orgId: string, window: Omit<ReplayWindow, 'after'>) =>
      events.count({
        org_id: orgId,
        created_at: { $gte: window.since, $lt: window.until },
        ...(window.types.length > 0 ? { type: { $in: window.types } } : {}),
      }),
  };
}

function filtersOf(query: EventQuery): StoreFilter[] {
  const filters: StoreFilter[] = [];
  if (query.types.length === 1) filters.push({ type: query.types[0] });
  if (query.types.length > 1) filters.push({ type: { $in: query.types } });
  if (query.object_id) filters.push({ object_ids: query.object_id });
  if (query.created_after) filters.push({ created_at: { $gte: new Date(query.created_after) } });
  if (query.created_before) filters.push({ created_at: { $lt: new Date(query.created_before) } });
  return filters;
}
