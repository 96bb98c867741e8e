import {
  keyset,
  type KeysetPage,
  type KeysetPosition,
  type Order,
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
  /** Optimistic-concurrency revision: read-modify-write updates are conditional on it. */
  rev: number;
}

interface ContactDoc extends Omit<ContactRecord, 'id'> {
  _id: string;
  /** Lower-cased name: the `name` sort is case-insensitive. */
  name_key: string;
}

const contactSchema = new Schema<ContactDoc>(
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
    rev: { type: Number, required: true },
    ...OUTBOX_FIELDS,
  },
  { versionKey: false, collection: 'contacts', minimize: false },
);
// One index per sort of the list, each led by the tenant and the soft-delete flag every query carries.
contactSchema.index({ org_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
contactSchema.index({ org_id: 1, deleted_at: 1, updated_at: -1, _id: -1 });
contactSchema.index({ org_id: 1, deleted_at: 1, name_key: 1, _id: 1 });
contactSchema.index({ org_id: 1, tags: 1 });
contactSchema.index({ org_id: 1, company_id: 1 });
contactSchema.index({ _outbox_pending: 1 });
// Channel identities: inbound messages find their contact by them.
contactSchema.index({ org_id: 1, chatapp_jid: 1 });
contactSchema.index({ org_id: 1, photoapp_username: 1 });
contactSchema.index({ org_id: 1, socialmsg_psid: 1 });

export type ChannelField = 'chatapp_jid' | 'photoapp_username' | 'socialmsg_psid';

export type ContactSort = 'created_at' | 'updated_at' | 'name';

export interface ContactQuery {
  sort: ContactSort;
  order: Order;
  limit: number;
  after: KeysetPosition | undefined;
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

const SORT_FIELD: Record<ContactSort, string> = { created_at: 'created_at', updated_at: 'updated_at', name: 'name_key' };

export type ContactRepository = ReturnType<typeof createContactRepository>;

export function createContactRepository(db: Connection) {
  const Contact = db.model<ContactDoc>('Contact', contactSchema);
  const toRecord = (doc: ContactDoc): ContactRecord => recordOf(doc, ['name_key', 'counted_events']);
  const live = (orgId: string) => ({ org_id: orgId, deleted_at: null });
  // meta.total may be approximate (spec §8): a few seconds old, refreshed at once after this process's writes.
  const totals = new TtlCache<number>(5_000);

  return {
    collection: Contact.collection,

    async insert(record: ContactRecord, events: OutboxEntry[]): Promise<void> {
      const { id, ...rest } = record;
      await Contact.collection.insertOne({ _id: id, ...rest, name_key: record.name.toLowerCase(), ...outboxOnInsert(events) } as never);
      totals.invalidate(record.org_id);
    },

    async getById(orgId: string, id: string): Promise<ContactRecord | null> {
      const doc = await Contact.findOne({ _id: id, ...live(orgId) }).lean<ContactDoc>();
      return doc ? toRecord(doc) : null;
    },

    async getMany(orgId: string, ids: string[]): Promise<ContactRecord[]> {
      if (ids.length === 0) return [];
      const docs = await Contact.find({ _id: { $in: [...new Set(ids)] }, ...live(orgId) }).lean<ContactDoc[]>();
      return docs.map(toRecord);
    },

    /** Approximate size of the organization's list: live contacts, no filters (spec §8 rule 4). */
    async countLive(orgId: string): Promise<number> {
      return totals.get(orgId, () => Contact.countDocuments(live(orgId)).exec());
    },

    async countByCompany(orgId: string, companyId: string): Promise<number> {
      return Contact.countDocuments({ ...live(orgId), company_id: companyId });
    },

    async list(orgId: string, query: ContactQuery): Promise<KeysetPage<ContactRecord>> {
      const field = SORT_FIELD[query.sort];
      const after = query.after && query.sort !== 'name' ? { ...query.after, value: new Date(String(query.after.value)) } : query.after;
      const { filter: position, sort } = keyset(field, query.order, after);
      const conditions: FilterQuery<ContactDoc>[] = [live(orgId), ...filtersOf(query)];
      if (query.after) conditions.push(position as FilterQuery<ContactDoc>);
      const rows = await Contact.find({ $and: conditions })
        .sort(sort)
        .limit(query.limit + 1)
        .lean<ContactDoc[]>();
      const page = toPage(rows, query.limit, (row) =>
        query.sort === 'name' ? row.name_key : (row[field as 'created_at'] as Date).toISOString(),
      );
      return { ...page, items: page.items.map(toRecord) };
    },

    /**
     * One page of a broadcast audience, oldest first: keyset on (created_at, _id) ascending, which the
     * (org_id, deleted_at, created_at -1, _id -1) index serves walked backwards. The position is the Date itself.
     */
    async audiencePage(
      orgId: string,
      query: AudienceQuery,
      limit: number,
      after: KeysetPosition | undefined,
    ): Promise<KeysetPage<ContactRecord>> {
      const { filter: position, sort } = keyset('created_at', 'asc', after);
      const conditions: FilterQuery<ContactDoc>[] = [live(orgId), ...audienceFilters(query)];
      // The $gte repeats the $or's lower bound: an index scan starts at the position, not at the organization's first contact.
      if (after) conditions.push({ created_at: { $gte: after.value } }, position as FilterQuery<ContactDoc>);
      const rows = await Contact.find({ $and: conditions })
        .sort(sort)
        .limit(limit + 1)
        .lean<ContactDoc[]>();
      const page = toPage(rows, limit, (row) => row.created_at);
      return { ...page, items: page.items.map(toRecord) };
    },

    /** The live contact holding a channel identity (or phone), oldest first. */
    async findBy(orgId: string, field: ChannelField | 'phone', value: string): Promise<ContactRecord | null> {
      const doc = await Contact.findOne({ ...live(orgId), [field]: value })
        .sort({ created_at: 1 })
        .lean<ContactDoc>();
      return doc ? toRecord(doc) : null;
    },

    /** Gives a contact a channel identity it lacks; a conditional update, so it never overwrites one. */
    async setChannelIdentity(orgId: string, id: string, field: ChannelField, value: string): Promise<ContactRecord | null> {
      const doc = await Contact.findOneAndUpdate(
        { _id: id, ...live(orgId), [field]: null },
        { $set: { [field]: value } },
        { new: true },
      ).lean<ContactDoc>();
      return doc ? toRecord(doc) : null;
    },

    /**
     * Counts one message event on the contact, once per event id: the event id joins a bounded list in the same
     * conditional update, so a redelivered event matches nothing. Returns whether it was counted.
     */
    async countMessage(orgId: string, id: string, eventId: string, at: Date): Promise<boolean> {
      // The raw collection: `counted_events` is bookkeeping outside the schema, which mongoose would strip.
      const result = await Contact.collection.updateOne({ _id: id as never, org_id: orgId, counted_events: { $ne: eventId } }, {
        $inc: { messages_count: 1 },
        $max: { last_message_at: at },
        $push: { counted_events: { $each: [eventId], $slice: -200 } },
      } as never);
      return result.modifiedCount === 1;
    },

    /**
     * Applies a change computed from the record at revision `rev`, with its events, in one single-document
     * update. Returns null when another writer got there first (the caller re-reads and retries) or the
     * contact is gone.
     */
    async updateAtRevision(
      orgId: string,
      id: string,
      rev: number,
      set: Partial<ContactRecord>,
      events: OutboxEntry[],
    ): Promise<ContactRecord | null> {
      const fields: Record<string, unknown> = { ...set };
      if (typeof set.name === 'string') fields.name_key = set.name.toLowerCase();
      const update = updateWithEvents(fields, events, { bumpRevision: true });
      const doc = await Contact.findOneAndUpdate({ _id: id, ...live(orgId), rev }, update, { new: true }).lean<ContactDoc>();
      if (set.deleted_at) totals.invalidate(orgId);
      return doc ? toRecord(doc) : null;
    },
  };
}

function filtersOf(query: ContactQuery): FilterQuery<ContactDoc>[] {
  const filters: FilterQuery<ContactDoc>[] = [];
  if (query.search) {
    const pattern = new RegExp(escapeRegExp(query.search), 'i');
    filters.push({ $or: [{ name: pattern }, { email: pattern }, { phone: pattern }] });
  }
  if (query.tag) filters.push({ tags: query.tag });
  if (query.source) filters.push({ source: query.source });
  if (query.company_id) filters.push({ company_id: query.company_id });
  const presence = (field: keyof ContactDoc, wanted: boolean | null | undefined) => {
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

function audienceFilters(query: AudienceQuery): FilterQuery<ContactDoc>[] {
  const filters: FilterQuery<ContactDoc>[] = [];
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
