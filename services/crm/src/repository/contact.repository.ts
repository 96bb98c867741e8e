import {
  type KeysetPage,
  type KeysetPosition,
  type Order,
  type OutboxEntry,
  type PageRequest,
  type Revised,
  RevisionedRecords,
  searchConditions,
  searchFields,
  type Storage,
  type StoreFilter,
  TtlCache,
  approximateTotals,
} from '@crm/shared';
import { type ClientSession, Schema } from 'mongoose';
import type { LinkBranch } from './links.repository';

export interface ContactRecord {
  id: string;
  org_id: string;
  name: string;
  email: string | null;
  phone: string | null;
  photoapp_username: string | null;
  chatapp_jid: string | null;
  socialmsg_psid: string | null;
  socialmsg_name: string | null;
  source: string | null;
  avatar_url: string | null;
  company_id: string | null;
  tags: string[];
  custom_fields: Record<string, unknown>;
  funnel_stage: string | null;
  last_message_at: Date | null;
  messages_count: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** Set on a contact folded into another by a merge (deleted at the same time): reads point at it. */
  merged_into?: string | null;
  /**
   * A merge in progress (docs/contact-merge.md): the contact is claimed to be folded into this one, since
   * `merge_claimed_at`. Reads and writes treat it as merged already; the merge (or the recovery pass) deletes it.
   */
  merging_into?: string | null;
  merge_claimed_at?: Date | null;
  /** On a survivor: the contacts it absorbed (the latest 200), so a repeated merge step raises contact.merged once. */
  absorbed_ids?: string[];
  /** The integrator's id; unique among the organization's live contacts (absent on records older than the field). */
  external_id?: string | null;
  /**
   * Live notes on the contact and live deals linking it, kept by every write that changes them, in the same
   * transaction (docs/performance.md). Absent on contacts stored before the counts were: those are counted on read
   * until the start-up pass (contact-counts.repository.ts) has stored theirs.
   */
  notes_count?: number;
  deals_count?: number;
}

/** The stored counts of a contact. */
export type ContactCounts = Required<Pick<ContactRecord, 'notes_count' | 'deals_count'>>;

/** What a contact nothing links to yet holds: a new contact's counts. */
const NO_LINKS: ContactCounts = { notes_count: 0, deals_count: 0 };

/** A contact stored before its counts were (ContactRecord.notes_count). */
export const UNCOUNTED = { $or: [{ notes_count: { $exists: false } }, { deals_count: { $exists: false } }] };

const contactSchema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    name_key: { type: String, required: true },
    email: { type: String, default: null },
    phone: { type: String, default: null },
    photoapp_username: { type: String, default: null },
    chatapp_jid: { type: String, default: null },
    socialmsg_psid: { type: String, default: null },
    socialmsg_name: { type: String, default: null },
    source: { type: String, default: null },
    avatar_url: { type: String, default: null },
    company_id: { type: String, default: null },
    tags: { type: [String], default: [] },
    custom_fields: { type: Schema.Types.Mixed, default: {} },
    funnel_stage: { type: String, default: null },
    last_message_at: { type: Date, default: null },
    messages_count: { type: Number, default: 0 },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    deleted_at: { type: Date, default: null },
    merged_into: { type: String, default: null },
    merging_into: { type: String, default: null },
    merge_claimed_at: { type: Date, default: null },
    absorbed_ids: { type: [String], default: undefined },
    // Derived (search-keys.ts): word prefixes of name and e-mail, phone digits' prefixes and ends; normalized text.
    search_keys: { type: [String], default: undefined },
    search_text: { type: String },
    external_id: { type: String, default: null },
    // No default: absent means "not counted yet" (ContactRecord.notes_count).
    notes_count: { type: Number },
    deals_count: { type: Number },
  },
  { versionKey: false, collection: 'contacts', minimize: false },
);
// One index per sort of the list, each led by the tenant and the soft-delete flag every query carries.
contactSchema.index({ org_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
contactSchema.index({ org_id: 1, deleted_at: 1, updated_at: -1, _id: -1 });
contactSchema.index({ org_id: 1, deleted_at: 1, name_key: 1, _id: 1 });
// A tag or a search term, then the default order: the page is an index range on any store.
contactSchema.index({ org_id: 1, deleted_at: 1, tags: 1, created_at: -1, _id: -1 });
contactSchema.index({ org_id: 1, deleted_at: 1, search_keys: 1, created_at: -1, _id: -1 });
contactSchema.index({ org_id: 1, company_id: 1 });
// Channel identities: inbound messages find their contact by them, live or not (holdersOf), and a new chat sender
// the live contact with its phone (findBy). Each index holds exactly the fields of those filters: SecantusDB reads
// an equality filter through an index only when the filter's fields are the index's leading fields; with
// deleted_at left out of the index, `{org_id, deleted_at, phone}` read the organization's whole range (27 ms at
// 10,000 contacts against 0.3, `npm run bench:reads`' driver probe).
contactSchema.index({ org_id: 1, chatapp_jid: 1, deleted_at: 1 });
contactSchema.index({ org_id: 1, photoapp_username: 1, deleted_at: 1 });
contactSchema.index({ org_id: 1, socialmsg_psid: 1, deleted_at: 1 });
contactSchema.index({ org_id: 1, phone: 1, deleted_at: 1 });
// Merges in progress: the recovery pass's query (across organizations), oldest claim first.
contactSchema.index({ merge_claimed_at: 1 });

export type ChannelField = 'chatapp_jid' | 'photoapp_username' | 'socialmsg_psid';

export type ContactSort = 'created_at' | 'updated_at' | 'name';

export interface ContactQuery extends PageRequest {
  sort: ContactSort;
  order: Order;
  search?: string | null;
  tag?: string | null;
  source?: string | null;
  has_chatapp?: boolean | null;
  has_photoapp?: boolean | null;
  has_socialmsg?: boolean | null;
  created_after?: string | null;
  created_before?: string | null;
  updated_after?: string | null;
  company_id?: string | null;
}

/** A broadcast audience: who (everyone, by tags, or an explicit list), narrowed by the filters. */
export interface AudienceQuery {
  match: { type: 'all' } | { type: 'tags'; tags: string[]; operator: 'or' | 'and' } | { type: 'contacts'; ids: string[] };
  has_chatapp?: boolean | undefined;
  source?: string | undefined;
  created_after?: string | undefined;
  created_before?: string | undefined;
  exclude_tags: string[];
}

/** What `search` matches: name, e-mail or phone (spec §4). */
const SEARCHED = ['name', 'email', 'phone'] as const;

const SORT: Record<ContactSort, { field: string; type: 'date' | 'string' }> = {
  created_at: { field: 'created_at', type: 'date' },
  updated_at: { field: 'updated_at', type: 'date' },
  name: { field: 'name_key', type: 'string' },
};

export type ContactRepository = ReturnType<typeof createContactRepository>;

export function createContactRepository(storage: Storage) {
  const contacts = new RevisionedRecords<ContactRecord>(storage, {
    model: 'Contact',
    schema: contactSchema,
    what: 'contact',
    outbox: true,
    // name_key: the lower-cased name, for the case-insensitive `name` sort; counted_events: see countMessage;
    // search_keys, search_text: what `search` looks up (search-keys.ts).
    internal: ['name_key', 'counted_events', 'search_keys', 'search_text'],
    derive: (fields) => ({
      ...(typeof fields.name === 'string' ? { name_key: fields.name.toLowerCase() } : {}),
      ...(SEARCHED.some((field) => fields[field] !== undefined)
        ? searchFields({ texts: [fields.name, fields.email], phones: [fields.phone] })
        : {}),
    }),
    deriveFrom: SEARCHED,
    deriveVersion: 'search-1',
  });
  const live = (orgId: string) => ({ org_id: orgId, deleted_at: null });
  // A contact claimed by a merge in progress reads as merged already (lists still show it until it is deleted).
  const current = (orgId: string) => ({ ...live(orgId), merging_into: null });
  // meta.total may be approximate (spec §8): seconds old (longer for large organizations: approximate-totals.ts),
  // refreshed at once after this process's writes.
  const totals = approximateTotals();

  return {
    collection: contacts.collection,

    async insert(record: ContactRecord, events: OutboxEntry[]) {
      const stored = await contacts.insert({ ...NO_LINKS, ...record }, { events });
      totals.invalidate(record.org_id);
      return stored;
    },

    getById: (orgId: string, id: string) => contacts.findOne({ _id: id, ...current(orgId) }),

    /**
     * getById, with the rows of other collections' pipelines ($unionWith `branches`) in the same command: a read
     * that shows what links to the contact costs one round trip to the database, not one per collection.
     */
    async getByIdWith(orgId: string, id: string, branches: LinkBranch[]) {
      const rows = await contacts.collection
        .aggregate([
          { $match: { _id: id, ...current(orgId) } },
          { $project: contacts.hidden },
          ...branches.map((branch) => ({ $unionWith: branch })),
        ])
        .toArray();
      // The contact's own row comes first; the branches' rows follow it.
      const own = rows[0]?._id === id ? rows[0] : undefined;
      return { record: own ? contacts.record(own) : null, linked: own ? rows.slice(1) : rows };
    },

    getMany: (orgId: string, ids: string[]) =>
      ids.length === 0 ? Promise.resolve([]) : contacts.findMany({ _id: { $in: [...new Set(ids)] }, ...current(orgId) }),

    /** These contacts as stored, whatever their state (live, claimed by a merge, deleted): a merge decides on them. */
    getAny: (orgId: string, ids: string[]) => contacts.findMany({ _id: { $in: [...new Set(ids)] }, org_id: orgId }),

    /** Approximate size of the organization's list: live contacts, no filters (spec §8 rule 4). */
    countLive: (orgId: string) => totals.get(orgId, () => contacts.count(live(orgId))),

    countByCompany: (orgId: string, companyId: string) => contacts.count({ ...live(orgId), company_id: companyId }),

    list: (orgId: string, query: ContactQuery) => {
      const filters = filtersOf(query);
      return contacts.listPage(filters && [live(orgId), ...filters], { ...SORT[query.sort], order: query.order }, query);
    },

    /** Stores many new contacts at once, with their derived keys and no events (an import; the benchmark's seed). */
    importMany: (records: ContactRecord[]) => contacts.importMany(records.map((record) => ({ ...NO_LINKS, ...record }))),

    /**
     * Moves the stored counts of these contacts by `deltas`, inside the transaction of the write that links or
     * unlinks them (a deal, whatever the state of its contacts): one command. Contacts not counted yet keep no
     * counts (see adjustCounters).
     */
    adjustCounts: (orgId: string, ids: string[], deltas: Partial<ContactCounts>, session: ClientSession) =>
      ids.length === 0
        ? Promise.resolve(0)
        : contacts.adjustCounters({ _id: { $in: [...new Set(ids)] }, org_id: orgId }, deltas, { session }),

    /**
     * adjustCounts of one current contact (live, not claimed by a merge), which a note needs as its parent: false,
     * and nothing changed, when it is not. The write is the existence check, so a note costs no separate read.
     */
    async adjustCurrent(orgId: string, id: string, deltas: Partial<ContactCounts>, session: ClientSession): Promise<boolean> {
      return (await contacts.adjustCounters({ _id: id, ...current(orgId) }, deltas, { session })) === 1;
    },

    /**
     * Contacts stored before their counts, of every organization, in `_id` order: the start-up pass's pages
     * (contact-counts.repository.ts), windowed by the kit like every list where the store needs it.
     */
    uncountedPage: (after: KeysetPosition | undefined, limit: number) =>
      contacts.storedPage([UNCOUNTED], { field: '_id', order: 'asc', type: 'string', unique: true }, { limit, after }),

    /** Stores counts computed from the linked records in the same transaction (a merge's survivor); the contact as stored. */
    setCounts: (orgId: string, id: string, counts: ContactCounts, session: ClientSession) =>
      contacts.update({ _id: id, org_id: orgId }, counts, { session }),

    /**
     * One page of a broadcast audience, oldest first: keyset on (created_at, _id) ascending, which the
     * (org_id, deleted_at, created_at -1, _id -1) index serves walked backwards.
     */
    audiencePage: (orgId: string, query: AudienceQuery, page: PageRequest): Promise<KeysetPage<ContactRecord>> =>
      contacts.listPage([live(orgId), ...audienceFilters(query)], { field: 'created_at', order: 'asc', type: 'date' }, page),

    /** The live contact holding a channel identity (or phone), oldest first. */
    findBy: (orgId: string, field: ChannelField | 'phone', value: string) =>
      contacts.findOne({ ...live(orgId), [field]: value }, { created_at: 1 }),

    /** Gives a contact a channel identity it lacks; a conditional update, so it never overwrites one. */
    setChannelIdentity: (orgId: string, id: string, field: ChannelField, value: string) =>
      contacts.update({ _id: id, ...live(orgId), [field]: null }, { [field]: value }),

    /**
     * Counts one message event on the contact, once per event id: the event id joins a bounded list in the same
     * conditional update, so a redelivered event matches nothing. Sent beside the other counts of the moment in one
     * command (updateBeside: the driver's operators as given, so `counted_events`, bookkeeping outside the schema,
     * is not stripped); settles once stored.
     */
    countMessage: (orgId: string, id: string, eventId: string, at: Date): Promise<void> =>
      contacts.updateBeside(
        { _id: id, org_id: orgId, counted_events: { $ne: eventId } },
        { $inc: { messages_count: 1 }, $max: { last_message_at: at }, $push: { counted_events: { $each: [eventId], $slice: -200 } } },
      ),

    /**
     * A change computed from the contact at revision `rev`, with its events; throws WriteConflict when it lost (a
     * contact claimed by a merge meanwhile is at another revision).
     */
    async updateAtRevision(orgId: string, id: string, rev: number, set: Partial<ContactRecord>, events: OutboxEntry[]) {
      const updated = await contacts.updateAtRevision({ _id: id, ...current(orgId) }, rev, set, { events });
      if (set.deleted_at) totals.invalidate(orgId);
      return updated;
    },

    /** The contact a folded contact was (or is being) merged into (one hop; null for a contact that was not). */
    async mergedInto(orgId: string, id: string): Promise<string | null> {
      const contact = await contacts.findOne({ _id: id, org_id: orgId });
      return contact?.merged_into ?? contact?.merging_into ?? null;
    },

    merges: mergeSteps(contacts, live, () => totals),

    /**
     * The contacts holding a channel identity, in one read on its (org_id, identity) index: the oldest live one, and
     * the one a merge folded last (messages to it belong to the contact it became). An identity has a handful of
     * holders, tombstones included.
     */
    async holdersOf(orgId: string, field: ChannelField, value: string) {
      const holders = await contacts.findMany({ org_id: orgId, [field]: value });
      const time = (at: Date | null | undefined) => at?.getTime() ?? 0;
      const live = holders.filter((contact) => !contact.deleted_at).sort((a, b) => time(a.created_at) - time(b.created_at));
      const folded = holders.filter((contact) => contact.merged_into).sort((a, b) => time(b.deleted_at) - time(a.deleted_at));
      return { live: live[0] ?? null, folded: folded[0] ?? null };
    },
  };
}

/**
 * The single-document writes of a merge (domain/contact-merge.ts): each conditional, so each is idempotent and
 * of two contenders one wins.
 */
function mergeSteps(
  contacts: RevisionedRecords<ContactRecord>,
  live: (orgId: string) => { org_id: string; deleted_at: null },
  totals: () => TtlCache<number>,
) {
  return {
    /** Step 1: claims a live contact, unchanged since read at `rev`, for a merge into `into`; WriteConflict when it lost. */
    claim: (contact: Revised<ContactRecord>, into: string, at: Date) =>
      contacts.updateAtRevision({ _id: contact.id, ...live(contact.org_id), merging_into: null }, contact.rev, {
        merging_into: into,
        merge_claimed_at: at,
      }),

    /** Gives up a claim (the merge was refused or lost a race): the contact is as it was. */
    release: (orgId: string, id: string, into: string) =>
      contacts.update({ _id: id, ...live(orgId), merging_into: into }, { merging_into: null, merge_claimed_at: null }),

    /** A claim the recovery pass could not complete waits another period before it is tried again. */
    defer: (orgId: string, id: string, into: string, at: Date) =>
      contacts.update({ _id: id, ...live(orgId), merging_into: into }, { merge_claimed_at: at }),

    /** Step 3: the survivor, unchanged since read and not claimed itself, takes what the merge gives it. */
    absorb: (survivor: Revised<ContactRecord>, set: Partial<ContactRecord>, events: OutboxEntry[]) =>
      contacts.updateAtRevision({ _id: survivor.id, ...live(survivor.org_id), merging_into: null }, survivor.rev, set, { events }),

    /** Step 4: deletes a claimed contact, with contact.deleted; false when another pass did it already. */
    async fold(contact: ContactRecord, into: string, at: Date, events: OutboxEntry[]): Promise<boolean> {
      const filter = { _id: contact.id, ...live(contact.org_id), merging_into: contact.merging_into ?? null };
      const set = { deleted_at: at, merged_into: into, merging_into: null, merge_claimed_at: null, updated_at: at };
      const folded = await contacts.update(filter, set, { events });
      totals().invalidate(contact.org_id);
      return folded !== null;
    },

    /** Claims older than `before`, oldest first, across organizations: merges a crash interrupted. */
    stale: (before: Date, limit: number) =>
      contacts.findMany({ merge_claimed_at: { $lte: before }, deleted_at: null }, { sort: { merge_claimed_at: 1 }, limit }),

    async oldestClaimAt(): Promise<Date | null> {
      return (
        (await contacts.findOne({ merge_claimed_at: { $ne: null }, deleted_at: null }, { merge_claimed_at: 1 }))?.merge_claimed_at ?? null
      );
    },
  };
}

/** The list's conditions; null when the search can match nothing (no letter or digit in it). */
function filtersOf(query: ContactQuery): StoreFilter[] | null {
  const filters: StoreFilter[] = [];
  if (query.search) {
    const search = searchConditions(query.search);
    if (!search) return null;
    filters.push(...search);
  }
  if (query.tag) filters.push({ tags: query.tag });
  if (query.source) filters.push({ source: query.source });
  if (query.company_id) filters.push({ company_id: query.company_id });
  const presence = (field: keyof ContactRecord, wanted: boolean | null | undefined) => {
    if (wanted === true) filters.push({ [field]: { $ne: null } });
    if (wanted === false) filters.push({ [field]: null });
  };
  presence('chatapp_jid', query.has_chatapp);
  presence('photoapp_username', query.has_photoapp);
  presence('socialmsg_psid', query.has_socialmsg);
  if (query.created_after) filters.push({ created_at: { $gte: new Date(query.created_after) } });
  if (query.created_before) filters.push({ created_at: { $lt: new Date(query.created_before) } });
  if (query.updated_after) filters.push({ updated_at: { $gte: new Date(query.updated_after) } });
  return filters;
}

function audienceFilters(query: AudienceQuery): StoreFilter[] {
  const filters: StoreFilter[] = [];
  const { match } = query;
  if (match.type === 'tags') filters.push({ tags: match.operator === 'and' ? { $all: match.tags } : { $in: match.tags } });
  if (match.type === 'contacts') filters.push({ _id: { $in: match.ids } });
  // A chatapp identifier is the jid, or a phone number the provider can address.
  if (query.has_chatapp === true) filters.push({ $or: [{ chatapp_jid: { $ne: null } }, { phone: { $ne: null } }] });
  if (query.has_chatapp === false) filters.push({ chatapp_jid: null, phone: null });
  if (query.source) filters.push({ source: query.source });
  if (query.created_after) filters.push({ created_at: { $gte: new Date(query.created_after) } });
  if (query.created_before) filters.push({ created_at: { $lt: new Date(query.created_before) } });
  if (query.exclude_tags.length > 0) filters.push({ tags: { $nin: query.exclude_tags } });
  return filters;
}
