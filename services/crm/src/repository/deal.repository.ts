import {
  type Order,
  type OutboxEntry,
  type PageRequest,
  RevisionedRecords,
  routedFilter,
  searchConditions,
  searchFields,
  type Storage,
  type StoreFilter,
  approximateTotals,
} from '@crm/shared';
import { type ClientSession, Schema } from 'mongoose';

export type DealStatus = 'open' | 'won' | 'lost';

export interface DealRecord {
  id: string;
  org_id: string;
  title: string;
  description: string | null;
  value: number;
  currency: string;
  status: DealStatus;
  funnel_id: string;
  stage_id: string;
  contact_ids: string[];
  company_id: string | null;
  assigned_to: string | null;
  expected_close_date: Date | null;
  probability: number | null;
  lost_reason: string | null;
  closed_at: Date | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Deals without an expected close date sort as if they closed after every real date: last in ascending order,
 * first in descending order. A sentinel keeps the keyset on (close_key, _id) free of null special cases.
 */
export const NO_CLOSE_DATE = new Date('9999-12-31T00:00:00.000Z');

const dealSchema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    title: { type: String, required: true },
    description: { type: String, default: null },
    value: { type: Number, required: true },
    currency: { type: String, required: true },
    status: { type: String, required: true },
    funnel_id: { type: String, required: true },
    stage_id: { type: String, required: true },
    contact_ids: { type: [String], default: [] },
    company_id: { type: String, default: null },
    assigned_to: { type: String, default: null },
    expected_close_date: { type: Date, default: null },
    close_key: { type: Date, required: true },
    probability: { type: Number, default: null },
    lost_reason: { type: String, default: null },
    closed_at: { type: Date, default: null },
    tags: { type: [String], default: [] },
    custom_fields: { type: Schema.Types.Mixed, default: {} },
    deleted_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    // Derived (search-keys.ts), for `search` (the title).
    search_keys: { type: [String], default: undefined },
    search_text: { type: String },
  },
  { versionKey: false, collection: 'deals', minimize: false },
);
// One index per sort of the list, led by the tenant and the soft-delete flag every query carries; then the
// lookups behind totals, sub-collections and the stage-delete guard.
dealSchema.index({ org_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
dealSchema.index({ org_id: 1, deleted_at: 1, updated_at: -1, _id: -1 });
dealSchema.index({ org_id: 1, deleted_at: 1, value: -1, _id: -1 });
dealSchema.index({ org_id: 1, deleted_at: 1, close_key: 1, _id: 1 });
dealSchema.index({ org_id: 1, deleted_at: 1, search_keys: 1, created_at: -1, _id: -1 });
dealSchema.index({ org_id: 1, funnel_id: 1, stage_id: 1, status: 1 });
dealSchema.index({ org_id: 1, contact_ids: 1 });
dealSchema.index({ org_id: 1, company_id: 1 });

export type DealSort = 'created_at' | 'updated_at' | 'value' | 'expected_close_date';

export interface DealQuery extends PageRequest {
  sort: DealSort;
  order: Order;
  search?: string | null;
  funnel_id?: string | null;
  /** Already resolved to ids (a stage name may match several stages). */
  stage_ids?: string[] | null;
  status?: string | null;
  assigned_to?: string | null;
  tag?: string | null;
  created_after?: string | null;
  created_before?: string | null;
  updated_after?: string | null;
  contact_id?: string | null;
  company_id?: string | null;
}

export interface Totals {
  deals: number;
  value: number;
}

const SORT: Record<DealSort, { field: string; type: 'date' | 'number' }> = {
  created_at: { field: 'created_at', type: 'date' },
  updated_at: { field: 'updated_at', type: 'date' },
  value: { field: 'value', type: 'number' },
  // expected_close_date, or NO_CLOSE_DATE when it is null: the keyset sort needs a value on every row.
  expected_close_date: { field: 'close_key', type: 'date' },
};

export type DealRepository = ReturnType<typeof createDealRepository>;

export function createDealRepository(storage: Storage) {
  const deals = new RevisionedRecords<DealRecord>(storage, {
    model: 'Deal',
    schema: dealSchema,
    what: 'deal',
    outbox: true,
    internal: ['close_key', 'search_keys', 'search_text'],
    derive: (fields) => ({
      ...(fields.expected_close_date !== undefined ? { close_key: fields.expected_close_date ?? NO_CLOSE_DATE } : {}),
      ...(typeof fields.title === 'string' ? searchFields({ texts: [fields.title] }) : {}),
    }),
    deriveVersion: 'search-1',
  });
  const live = (orgId: string) => ({ org_id: orgId, deleted_at: null });
  // meta.total may be approximate (spec §8): seconds old (longer for large organizations: approximate-totals.ts),
  // refreshed at once after this process's writes.
  const totals = approximateTotals();

  /** Open live deals grouped by one field, in one aggregation: the totals of funnels and stages (catalogue §3). */
  async function openTotals(orgId: string, field: 'stage_id', ids: string[]): Promise<Map<string, Totals>> {
    if (ids.length === 0) return new Map();
    const rows = await deals.collection
      .aggregate<{ _id: string; deals: number; value: number }>([
        {
          $match: routedFilter(storage.connection, deals.collection.collectionName, {
            org_id: orgId,
            deleted_at: null,
            status: 'open',
            [field]: { $in: ids },
          }),
        },
        { $group: { _id: `$${field}`, deals: { $sum: 1 }, value: { $sum: '$value' } } },
      ])
      .toArray();
    return new Map(rows.map((row) => [row._id, { deals: Number(row.deals), value: Number(row.value) }]));
  }

  return {
    collection: deals.collection,

    /** In `session` when its contacts count it in the same transaction. */
    async insert(record: DealRecord, events: OutboxEntry[], session?: ClientSession) {
      const stored = await deals.insert(record, { events, session });
      totals.invalidatePrefix(`${record.org_id}|`);
      return stored;
    },

    getById: (orgId: string, id: string) => deals.findOne({ _id: id, ...live(orgId) }),

    /** Approximate size of a list: live deals without query filters, of the organization or of one parent. */
    async countLive(orgId: string, parent: { contact_id?: string | null; company_id?: string | null } = {}): Promise<number> {
      const filter = {
        ...live(orgId),
        ...(parent.contact_id ? { contact_ids: parent.contact_id } : {}),
        ...(parent.company_id ? { company_id: parent.company_id } : {}),
      };
      return totals.get(`${orgId}|${parent.contact_id ?? ''}|${parent.company_id ?? ''}`, () => deals.count(filter));
    },

    /** Live deals of any status in a stage: a stage that holds them cannot be deleted. */
    countInStage: (orgId: string, stageId: string) => deals.count({ ...live(orgId), stage_id: stageId }),

    openTotalsByStage: (orgId: string, stageIds: string[]) => openTotals(orgId, 'stage_id', stageIds),

    list: (orgId: string, query: DealQuery) => {
      const filters = filtersOf(query);
      return deals.listPage(filters && [live(orgId), ...filters], { ...SORT[query.sort], order: query.order }, query);
    },

    /** A change computed from the deal at revision `rev`, with its events; throws WriteConflict when it lost. */
    async updateAtRevision(
      orgId: string,
      id: string,
      rev: number,
      set: Partial<DealRecord>,
      events: OutboxEntry[],
      session?: ClientSession,
    ) {
      const updated = await deals.updateAtRevision({ _id: id, ...live(orgId) }, rev, set, { events, session });
      // Counts per parent change with a delete or a re-link.
      if (set.deleted_at || set.contact_ids || set.company_id !== undefined) totals.invalidatePrefix(`${orgId}|`);
      return updated;
    },

    /**
     * A merge: deals linked to any of `from` are linked to `to` instead (once, beside their other contacts).
     * Idempotent (a repeat finds nothing linked to `from`); their revision advances, so a concurrent edit of their
     * contacts reads them again.
     */
    async relinkContacts(orgId: string, from: string[], to: string, at: Date, session?: ClientSession): Promise<void> {
      const linked = { org_id: orgId, contact_ids: { $in: from } };
      await deals.updateMany(linked, { $addToSet: { contact_ids: to }, $set: { updated_at: at } }, { session });
      await deals.updateMany(linked, { $pull: { contact_ids: { $in: from } } }, { session });
      totals.invalidatePrefix(`${orgId}|`);
    },
  };
}

/** The list's conditions; null when the search can match nothing. */
function filtersOf(query: DealQuery): StoreFilter[] | null {
  const search = query.search ? searchConditions(query.search) : [];
  if (!search) return null;
  const filters: StoreFilter[] = [...search];
  if (query.funnel_id) filters.push({ funnel_id: query.funnel_id });
  if (query.stage_ids) filters.push({ stage_id: { $in: query.stage_ids } });
  if (query.status) filters.push({ status: query.status });
  if (query.assigned_to) filters.push({ assigned_to: query.assigned_to });
  if (query.tag) filters.push({ tags: query.tag });
  if (query.contact_id) filters.push({ contact_ids: query.contact_id });
  if (query.company_id) filters.push({ company_id: query.company_id });
  if (query.created_after) filters.push({ created_at: { $gte: new Date(query.created_after) } });
  if (query.created_before) filters.push({ created_at: { $lt: new Date(query.created_before) } });
  if (query.updated_after) filters.push({ updated_at: { $gte: new Date(query.updated_after) } });
  return filters;
}
