import {
  keyset,
  type KeysetPage,
  type KeysetPosition,
  OUTBOX_FIELDS,
  type OutboxEntry,
  outboxOnInsert,
  recordOf,
  toPage,
  updateWithEvents,
  TtlCache,
} from '@crm/shared';
import { Schema, type Connection, type FilterQuery } from 'mongoose';
import { escapeRegExp } from './plain';

export interface CompanyRecord {
  id: string;
  org_id: string;
  name: string;
  email: string | null;
  phone: string | null;
  website: string | null;
  sector: string | null;
  size: string | null;
  city: string | null;
  state: string | null;
  /** Member id of the responsible member. */
  assigned_to: string | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** Optimistic-concurrency revision: read-modify-write updates are conditional on it. */
  rev: number;
}

interface CompanyDoc extends Omit<CompanyRecord, 'id'> {
  _id: string;
}

const companySchema = new Schema<CompanyDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    email: { type: String, default: null },
    phone: { type: String, default: null },
    website: { type: String, default: null },
    sector: { type: String, default: null },
    size: { type: String, default: null },
    city: { type: String, default: null },
    state: { type: String, default: null },
    assigned_to: { type: String, default: null },
    tags: { type: [String], default: [] },
    custom_fields: { type: Schema.Types.Mixed, default: {} },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    deleted_at: { type: Date, default: null },
    rev: { type: Number, required: true },
    ...OUTBOX_FIELDS,
  },
  { versionKey: false, collection: 'companies', minimize: false },
);
// The list sorts by created_at only; every query carries the tenant and the soft-delete flag.
companySchema.index({ org_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
companySchema.index({ org_id: 1, tags: 1 });
companySchema.index({ org_id: 1, assigned_to: 1 });
companySchema.index({ _outbox_pending: 1 });

export interface CompanyQuery {
  limit: number;
  after: KeysetPosition | undefined;
  search?: string | null;
  tag?: string | null;
  sector?: string | null;
  size?: string | null;
  assigned_to?: string | null;
}

export type CompanyRepository = ReturnType<typeof createCompanyRepository>;

export function createCompanyRepository(db: Connection) {
  const Company = db.model<CompanyDoc>('Company', companySchema);
  const toRecord = (doc: CompanyDoc): CompanyRecord => recordOf(doc);
  const live = (orgId: string) => ({ org_id: orgId, deleted_at: null });
  // meta.total may be approximate (spec §8): a few seconds old, refreshed at once after this process's writes.
  const totals = new TtlCache<number>(5_000);

  return {
    collection: Company.collection,

    async insert(record: CompanyRecord, events: OutboxEntry[]): Promise<void> {
      const { id, ...rest } = record;
      await Company.collection.insertOne({ _id: id, ...rest, ...outboxOnInsert(events) } as never);
      totals.invalidate(record.org_id);
    },

    async getById(orgId: string, id: string): Promise<CompanyRecord | null> {
      const doc = await Company.findOne({ _id: id, ...live(orgId) }).lean<CompanyDoc>();
      return doc ? toRecord(doc) : null;
    },

    /** Approximate size of the organization's list: live companies, no filters (spec §8 rule 4). */
    async countLive(orgId: string): Promise<number> {
      return totals.get(orgId, () => Company.countDocuments(live(orgId)).exec());
    },

    async list(orgId: string, query: CompanyQuery): Promise<KeysetPage<CompanyRecord>> {
      const after = query.after && { ...query.after, value: new Date(String(query.after.value)) };
      const { filter: position, sort } = keyset('created_at', 'desc', after);
      const conditions: FilterQuery<CompanyDoc>[] = [live(orgId), ...filtersOf(query)];
      if (after) conditions.push(position as FilterQuery<CompanyDoc>);
      const rows = await Company.find({ $and: conditions })
        .sort(sort)
        .limit(query.limit + 1)
        .lean<CompanyDoc[]>();
      const page = toPage(rows, query.limit, (row) => row.created_at.toISOString());
      return { ...page, items: page.items.map(toRecord) };
    },

    /**
     * Applies a change computed from the record at revision `rev`, with its events, in one single-document
     * update. Returns null when another writer got there first (the caller re-reads and retries) or the
     * company is gone.
     */
    async updateAtRevision(
      orgId: string,
      id: string,
      rev: number,
      set: Partial<CompanyRecord>,
      events: OutboxEntry[],
    ): Promise<CompanyRecord | null> {
      const update = updateWithEvents(set, events, { bumpRevision: true });
      const doc = await Company.findOneAndUpdate({ _id: id, ...live(orgId), rev }, update, { new: true }).lean<CompanyDoc>();
      if (set.deleted_at) totals.invalidate(orgId);
      return doc ? toRecord(doc) : null;
    },
  };
}

function filtersOf(query: CompanyQuery): FilterQuery<CompanyDoc>[] {
  const filters: FilterQuery<CompanyDoc>[] = [];
  if (query.search) {
    const pattern = new RegExp(escapeRegExp(query.search), 'i');
    filters.push({ $or: [{ name: pattern }, { email: pattern }, { phone: pattern }] });
  }
  if (query.tag) filters.push({ tags: query.tag });
  if (query.sector) filters.push({ sector: new RegExp(escapeRegExp(query.sector), 'i') });
  if (query.size) filters.push({ size: query.size });
  if (query.assigned_to) filters.push({ assigned_to: query.assigned_to });
  return filters;
}
