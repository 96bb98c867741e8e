import {
  escapeRegExp,
  type OutboxEntry,
  type PageRequest,
  RevisionedRecords,
  searchConditions,
  searchFields,
  type Storage,
  type StoreFilter,
  approximateTotals,
} from '@crm/shared';
import { Schema } from 'mongoose';

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
  /** The integrator's id; unique among the organization's live companies (absent on records older than the field). */
  external_id?: string | null;
}

const companySchema = new Schema(
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
    // Derived (search-keys.ts), for `search`.
    search_keys: { type: [String], default: undefined },
    search_text: { type: String },
    external_id: { type: String, default: null },
  },
  { versionKey: false, collection: 'companies', minimize: false },
);
// The list sorts by created_at only; every query carries the tenant and the soft-delete flag, and a tag or a
// search term, when there is one, leads to the same order.
companySchema.index({ org_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
companySchema.index({ org_id: 1, deleted_at: 1, tags: 1, created_at: -1, _id: -1 });
companySchema.index({ org_id: 1, deleted_at: 1, search_keys: 1, created_at: -1, _id: -1 });
companySchema.index({ org_id: 1, assigned_to: 1 });
// A batch upsert matches the live company by e-mail or phone: the filter's fields exactly (contact.repository.ts).
companySchema.index({ org_id: 1, email: 1, deleted_at: 1 });
companySchema.index({ org_id: 1, phone: 1, deleted_at: 1 });

export interface CompanyQuery extends PageRequest {
  search?: string | null;
  tag?: string | null;
  sector?: string | null;
  size?: string | null;
  assigned_to?: string | null;
}

/** What `search` matches: name, e-mail or phone (spec §4). */
const SEARCHED = ['name', 'email', 'phone'] as const;

export type CompanyRepository = ReturnType<typeof createCompanyRepository>;

export function createCompanyRepository(storage: Storage) {
  const companies = new RevisionedRecords<CompanyRecord>(storage, {
    model: 'Company',
    schema: companySchema,
    what: 'company',
    outbox: true,
    internal: ['search_keys', 'search_text'],
    derive: (fields) =>
      SEARCHED.some((field) => fields[field] !== undefined)
        ? searchFields({ texts: [fields.name, fields.email], phones: [fields.phone] })
        : {},
    deriveFrom: SEARCHED,
    deriveVersion: 'search-1',
  });
  const live = (orgId: string) => ({ org_id: orgId, deleted_at: null });
  // meta.total may be approximate (spec §8): seconds old (longer for large organizations: approximate-totals.ts),
  // refreshed at once after this process's writes.
  const totals = approximateTotals();

  return {
    collection: companies.collection,

    async insert(record: CompanyRecord, events: OutboxEntry[]) {
      const stored = await companies.insert(record, { events });
      totals.invalidate(record.org_id);
      return stored;
    },

    getById: (orgId: string, id: string) => companies.findOne({ _id: id, ...live(orgId) }),

    /** The live company whose e-mail or phone has this value, oldest first (batch upsert matching). */
    findBy: (orgId: string, field: 'email' | 'phone', value: string) =>
      companies.findOne({ ...live(orgId), [field]: value }, { created_at: 1 }),

    /** Approximate size of the organization's list: live companies, no filters (spec §8 rule 4). */
    countLive: (orgId: string) => totals.get(orgId, () => companies.count(live(orgId))),

    list: (orgId: string, query: CompanyQuery) => {
      const filters = filtersOf(query);
      return companies.listPage(filters && [live(orgId), ...filters], { field: 'created_at', order: 'desc', type: 'date' }, query);
    },

    /** A change computed from the company at revision `rev`, with its events; throws WriteConflict when it lost. */
    async updateAtRevision(orgId: string, id: string, rev: number, set: Partial<CompanyRecord>, events: OutboxEntry[]) {
      const updated = await companies.updateAtRevision({ _id: id, ...live(orgId) }, rev, set, { events });
      if (set.deleted_at) totals.invalidate(orgId);
      return updated;
    },
  };
}

/** The list's conditions; null when the search can match nothing. */
function filtersOf(query: CompanyQuery): StoreFilter[] | null {
  const search = query.search ? searchConditions(query.search) : [];
  if (!search) return null;
  const filters: StoreFilter[] = [...search];
  if (query.tag) filters.push({ tags: query.tag });
  if (query.sector) filters.push({ sector: new RegExp(escapeRegExp(query.sector), 'i') });
  if (query.size) filters.push({ size: query.size });
  if (query.assigned_to) filters.push({ assigned_to: query.assigned_to });
  return filters;
}
