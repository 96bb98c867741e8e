import {
  isDuplicateKeyError,
  keyset,
  type KeysetPage,
  type KeysetPosition,
  newId,
  type Order,
  OUTBOX_FIELDS,
  type OutboxEntry,
  recordOf,
  updateWithEvents,
  toPage,
  TtlCache,
} from '@crm/shared';
import type { Channel, InstanceKind } from '@crm/shared/schemas';
import { Schema, type ClientSession, type Connection, type FilterQuery } from 'mongoose';

export interface ConversationRecord {
  id: string;
  org_id: string;
  contact_id: string;
  contact_name: string;
  channel: Channel;
  instance_id: string;
  instance_name: string;
  instance_kind: InstanceKind;
  status: 'open' | 'closed';
  assigned_to: { id: string; name: string } | null;
  /** The AI agent that currently answers; set by its replies, cleared when a person is assigned (handoff). */
  ai_agent?: { id: string; name: string } | null;
  unread_count: number;
  last_message_at: Date | null;
  last_message_preview: string | null;
  last_inbound_at: Date | null;
  window_expires_at: Date | null;
  closed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  rev: number;
}

type ConversationDoc = Omit<ConversationRecord, 'id'> & { _id: string };

const schema = new Schema<ConversationDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    contact_id: { type: String, required: true },
    contact_name: { type: String, required: true },
    channel: { type: String, required: true },
    instance_id: { type: String, required: true },
    instance_name: { type: String, required: true },
    instance_kind: { type: String, required: true },
    status: { type: String, required: true },
    assigned_to: { type: Object, default: null },
    ai_agent: { type: Object, default: null },
    unread_count: { type: Number, default: 0 },
    last_message_at: { type: Date, default: null },
    last_message_preview: { type: String, default: null },
    last_inbound_at: { type: Date, default: null },
    window_expires_at: { type: Date, default: null },
    closed_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    rev: { type: Number, required: true },
    ...OUTBOX_FIELDS,
  },
  { versionKey: false, collection: 'conversations', minimize: false },
);
// One conversation per contact × channel × number: the unique key makes concurrent first messages meet.
schema.index({ org_id: 1, contact_id: 1, channel: 1, instance_id: 1 }, { unique: true });
schema.index({ org_id: 1, created_at: -1, _id: -1 });
schema.index({ org_id: 1, updated_at: -1, _id: -1 });
schema.index({ org_id: 1, last_message_at: -1, _id: -1 });
schema.index({ _outbox_pending: 1 });

export type ConversationSort = 'created_at' | 'updated_at' | 'last_message_at';

export interface ConversationQuery {
  sort: ConversationSort;
  order: Order;
  limit: number;
  after: KeysetPosition | undefined;
  updated_after?: string | null;
  status?: string | null;
  assigned_to?: string | null;
  contact_id?: string | null;
  channel?: string | null;
}

/** A message that lands in a conversation: creates it on the first message, reopens it when closed. */
export interface ConversationTouch {
  org_id: string;
  contact: { id: string; name: string };
  channel: Channel;
  instance: { id: string; name: string; kind: InstanceKind };
  at: Date;
  preview: string | null;
  inbound: boolean;
  /** Official numbers: the end of the free-text window this inbound message opens. */
  window_expires_at: Date | null;
  now: Date;
  /** An AI agent's reply: it now answers the conversation. */
  ai_agent?: { id: string; name: string };
}

export type ConversationRepository = ReturnType<typeof createConversationRepository>;

export function createConversationRepository(db: Connection) {
  const Conversation = db.model<ConversationDoc>('Conversation', schema);
  const toRecord = (doc: ConversationDoc): ConversationRecord => recordOf(doc);
  const totals = new TtlCache<number>(2_000);

  return {
    collection: Conversation.collection,

    async getById(orgId: string, id: string): Promise<ConversationRecord | null> {
      const doc = await Conversation.findOne({ _id: id, org_id: orgId }).lean<ConversationDoc>();
      return doc ? toRecord(doc) : null;
    },

    async find(orgId: string, contactId: string, channel: Channel, instanceId: string): Promise<ConversationRecord | null> {
      const doc = await Conversation.findOne({
        org_id: orgId,
        contact_id: contactId,
        channel,
        instance_id: instanceId,
      }).lean<ConversationDoc>();
      return doc ? toRecord(doc) : null;
    },

    /** The contact's conversation on the channel with the most recent message (default number choice of #53). */
    async latestForContact(orgId: string, contactId: string, channel: Channel): Promise<ConversationRecord | null> {
      const doc = await Conversation.findOne({ org_id: orgId, contact_id: contactId, channel })
        .sort({ last_message_at: -1 })
        .lean<ConversationDoc>();
      return doc ? toRecord(doc) : null;
    },

    async countAll(orgId: string): Promise<number> {
      return totals.get(orgId, () => Conversation.countDocuments({ org_id: orgId }).exec());
    },

    async list(orgId: string, query: ConversationQuery): Promise<KeysetPage<ConversationRecord>> {
      const after = query.after ? { ...query.after, value: new Date(String(query.after.value)) } : undefined;
      const { filter: position, sort } = keyset(query.sort, query.order, after);
      const conditions: FilterQuery<ConversationDoc>[] = [{ org_id: orgId }];
      if (query.updated_after) conditions.push({ updated_at: { $gte: new Date(query.updated_after) } });
      if (query.status) conditions.push({ status: query.status });
      if (query.assigned_to) conditions.push({ 'assigned_to.id': query.assigned_to });
      if (query.contact_id) conditions.push({ contact_id: query.contact_id });
      if (query.channel) conditions.push({ channel: query.channel });
      if (after) conditions.push(position as FilterQuery<ConversationDoc>);
      const rows = await Conversation.find({ $and: conditions })
        .sort(sort)
        .limit(query.limit + 1)
        .lean<ConversationDoc[]>();
      const page = toPage(rows, query.limit, (row) => (row[query.sort] ?? new Date(0)).toISOString());
      return { ...page, items: page.items.map(toRecord) };
    },

    /**
     * One atomic upsert per message: creates the conversation, or reopens and refreshes it. The window only
     * moves forward ($max), so a late or repeated callback never shortens it. In a transaction (`session`) a lost
     * race for the first insert aborts it and the caller retries the whole transaction.
     */
    async touch(touch: ConversationTouch, session?: ClientSession): Promise<ConversationRecord> {
      const key = { org_id: touch.org_id, contact_id: touch.contact.id, channel: touch.channel, instance_id: touch.instance.id };
      const max: Record<string, Date> = { last_message_at: touch.at };
      if (touch.inbound) max.last_inbound_at = touch.at;
      if (touch.window_expires_at) max.window_expires_at = touch.window_expires_at;
      const onInsert: Record<string, unknown> = {
        _id: newId('conversation'),
        contact_name: touch.contact.name,
        instance_name: touch.instance.name,
        instance_kind: touch.instance.kind,
        assigned_to: null,
        created_at: touch.now,
      };
      if (!touch.ai_agent) onInsert.ai_agent = null;
      if (!touch.inbound) onInsert.last_inbound_at = null;
      if (!touch.window_expires_at) onInsert.window_expires_at = null;
      const update = {
        $setOnInsert: onInsert,
        $set: {
          status: 'open',
          closed_at: null,
          updated_at: touch.now,
          ...(touch.preview !== null ? { last_message_preview: touch.preview } : {}),
          ...(touch.ai_agent ? { ai_agent: touch.ai_agent } : {}),
        },
        $max: max,
        $inc: { rev: 1, unread_count: touch.inbound ? 1 : 0 },
      };
      for (let attempt = 0; ; attempt++) {
        try {
          const doc = await Conversation.findOneAndUpdate(key, update, { upsert: true, new: true, session }).lean<ConversationDoc>();
          if (!doc) throw new Error('upsert returned no conversation');
          totals.invalidate(touch.org_id);
          return toRecord(doc);
        } catch (error) {
          // Two first messages raced to insert: the loser now finds the winner's document and updates it.
          if (!isDuplicateKeyError(error) || attempt >= 2 || session) throw error;
        }
      }
    },

    /**
     * Marks the conversation changed when one of its messages changed (status, edit), so that a client recovering
     * missed events by `updated_after` (spec §6 rule 8) finds it.
     */
    async touchUpdatedAt(orgId: string, id: string, at: Date): Promise<void> {
      await Conversation.updateOne({ _id: id, org_id: orgId }, { $max: { updated_at: at } });
    },

    /** Applies a change computed from revision `rev` with its events; null when another writer got there first. */
    async updateAtRevision(
      orgId: string,
      id: string,
      rev: number,
      set: Partial<ConversationRecord>,
      events: OutboxEntry[],
    ): Promise<ConversationRecord | null> {
      const update = updateWithEvents(set, events, { bumpRevision: true });
      const doc = await Conversation.findOneAndUpdate({ _id: id, org_id: orgId, rev }, update, { new: true }).lean<ConversationDoc>();
      return doc ? toRecord(doc) : null;
    },
  };
}
