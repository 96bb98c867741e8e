import {
  newId,
  type Order,
  type OutboxEntry,
  type PageRequest,
  RevisionedRecords,
  type Storage,
  type StoreFilter,
  TtlCache,
} from '@crm/shared';
import type { Channel, InstanceKind } from '@crm/shared/schemas';
import { Schema, type ClientSession } from 'mongoose';

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
  /** The window end the expiry scheduler still has to look at (null once it did); see fireWindowAlarm. */
  window_alarm_at?: Date | null;
  /** The window end conversation.window.expired was raised for: never twice for one end. */
  window_expired_at?: Date | null;
  closed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema(
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
    window_alarm_at: { type: Date, default: null },
    window_expired_at: { type: Date, default: null },
    closed_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'conversations', minimize: false },
);
// One conversation per contact × channel × number: the unique key makes concurrent first messages meet.
schema.index({ org_id: 1, contact_id: 1, channel: 1, instance_id: 1 }, { unique: true });
schema.index({ org_id: 1, created_at: -1, _id: -1 });
schema.index({ org_id: 1, updated_at: -1, _id: -1 });
schema.index({ org_id: 1, last_message_at: -1, _id: -1 });
// The window expiry scheduler: armed alarms, earliest first, across organizations.
schema.index({ window_alarm_at: 1 });

export type ConversationSort = 'created_at' | 'updated_at' | 'last_message_at';

export interface ConversationQuery extends PageRequest {
  sort: ConversationSort;
  order: Order;
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
  /** The contact was created for this message, so it has no conversation to update: the touch starts with the upsert. */
  new_contact?: boolean;
}

/** The conversation a message landed in, and whether that message created or reopened it. */
export interface TouchedConversation {
  conversation: ConversationRecord;
  opened: 'created' | 'reopened' | null;
}

/** The operators of a touch: refreshed fields, the window moved forward (never back), the alarm of its end re-armed. */
function touchUpdate(touch: ConversationTouch) {
  const max: Record<string, Date> = { last_message_at: touch.at };
  if (touch.inbound) max.last_inbound_at = touch.at;
  if (touch.window_expires_at) {
    max.window_expires_at = touch.window_expires_at;
    max.window_alarm_at = touch.window_expires_at;
  }
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
  return {
    $setOnInsert: onInsert,
    $set: {
      status: 'open',
      closed_at: null,
      updated_at: touch.now,
      ...(touch.preview !== null ? { last_message_preview: touch.preview } : {}),
      ...(touch.ai_agent ? { ai_agent: touch.ai_agent } : {}),
    },
    $max: max,
    $inc: { unread_count: touch.inbound ? 1 : 0 },
  };
}

export type ConversationRepository = ReturnType<typeof createConversationRepository>;

export function createConversationRepository(storage: Storage) {
  const conversations = new RevisionedRecords<ConversationRecord>(storage, {
    model: 'Conversation',
    schema,
    what: 'conversation',
    outbox: true,
  });
  const totals = new TtlCache<number>(2_000);

  return {
    collection: conversations.collection,

    getById: (orgId: string, id: string) => conversations.findOne({ _id: id, org_id: orgId }),

    find: (orgId: string, contactId: string, channel: Channel, instanceId: string) =>
      conversations.findOne({ org_id: orgId, contact_id: contactId, channel, instance_id: instanceId }),

    /** The contact's conversation on the channel with the most recent message (default number choice of #53). */
    latestForContact: (orgId: string, contactId: string, channel: Channel) =>
      conversations.findOne({ org_id: orgId, contact_id: contactId, channel }, { last_message_at: -1 }),

    countAll: (orgId: string) => totals.get(orgId, () => conversations.count({ org_id: orgId })),

    list(orgId: string, query: ConversationQuery) {
      const conditions: StoreFilter[] = [{ org_id: orgId }];
      if (query.updated_after) conditions.push({ updated_at: { $gte: new Date(query.updated_after) } });
      if (query.status) conditions.push({ status: query.status });
      if (query.assigned_to) conditions.push({ 'assigned_to.id': query.assigned_to });
      if (query.contact_id) conditions.push({ contact_id: query.contact_id });
      if (query.channel) conditions.push({ channel: query.channel });
      return conversations.listPage(conditions, { field: query.sort, order: query.order, type: 'date' }, query);
    },

    /**
     * The conversation a message lands in, opened by it when needed. A message in an open conversation is one
     * update; otherwise one upsert creates the conversation or reopens it, answered with what changed so that the
     * caller raises conversation.created or conversation.reopened. The window only moves forward ($max), so a late
     * or repeated callback never shortens it; each move re-arms the window alarm (window_alarm_at), which the
     * expiry scheduler takes once. Two first messages that race to insert meet on the unique key: in a
     * transaction (`session`) the transaction aborts and the caller runs it again.
     */
    async touch(touch: ConversationTouch, session: ClientSession): Promise<TouchedConversation> {
      const key = { org_id: touch.org_id, contact_id: touch.contact.id, channel: touch.channel, instance_id: touch.instance.id };
      const update = touchUpdate(touch);
      const open = touch.new_contact ? null : await conversations.update({ ...key, status: 'open' }, update, { session });
      if (open) return { conversation: open, opened: null };
      // Not open a moment ago: closed, or not there yet. The upsert answers the conversation as written, and the id
      // it would insert under tells which (one command fewer than reading the state before and the result after).
      // Conditional on "still not open": a writer that opened it meanwhile makes this upsert meet its document on
      // the unique key, and the transaction runs again (it then finds the conversation open).
      const touched = await conversations.update({ ...key, status: { $ne: 'open' } }, update, { upsert: true, session });
      if (!touched) throw new Error('upsert left no conversation');
      totals.invalidate(touch.org_id);
      return { conversation: touched, opened: touched.id === update.$setOnInsert._id ? 'created' : 'reopened' };
    },

    /**
     * Marks the conversation changed when one of its messages changed (status, edit), so that a client recovering
     * missed events by `updated_after` (spec §6 rule 8) finds it.
     */
    touchUpdatedAt: (orgId: string, id: string, at: Date): Promise<void> =>
      conversations.updateBeside({ _id: id, org_id: orgId }, { $max: { updated_at: at } }),

    /** Conversations whose window alarm is due (the expiry scheduler's batch), earliest first. */
    dueWindowAlarms: (now: Date, limit: number) =>
      conversations.findMany({ window_alarm_at: { $lte: now } }, { sort: { window_alarm_at: 1 }, limit }),

    async nextWindowAlarm(): Promise<Date | null> {
      return (await conversations.findOne({ window_alarm_at: { $ne: null } }, { window_alarm_at: 1 }))?.window_alarm_at ?? null;
    },

    /**
     * Takes a due window alarm, conditional on the alarm and the window as read (a message that moved the window
     * since wins, and the alarm is looked at again): `set` disarms or re-arms it, with the expiry event when the
     * window really closed. Answers whether this replica took it.
     */
    async fireWindowAlarm(read: ConversationRecord, set: Partial<ConversationRecord>, events: OutboxEntry[]): Promise<boolean> {
      const taken = await conversations.update(
        { _id: read.id, window_alarm_at: read.window_alarm_at, window_expires_at: read.window_expires_at },
        set,
        { events },
      );
      return taken !== null;
    },

    /** The conversations of one contact (a merge moves them to the contact it became). */
    ofContact: (orgId: string, contactId: string) => conversations.findMany({ org_id: orgId, contact_id: contactId }),

    /** A merge: the conversation now belongs to the surviving contact (it had none on this channel and number). */
    reassign: (read: ConversationRecord, contact: { id: string; name: string }, at: Date, session: ClientSession) =>
      conversations.update(
        { _id: read.id, contact_id: read.contact_id },
        { contact_id: contact.id, contact_name: contact.name, updated_at: at },
        { session },
      ),

    /**
     * A merge: `source` (the folded contact's conversation on a channel and number where the survivor has one too)
     * joins `target` — counters added, times and the window moved forward, open if either was — and is removed.
     */
    async absorb(target: ConversationRecord, source: ConversationRecord, at: Date, session: ClientSession): Promise<void> {
      const later = (source.last_message_at?.getTime() ?? 0) > (target.last_message_at?.getTime() ?? 0);
      const max: Record<string, Date> = {};
      for (const field of ['last_message_at', 'last_inbound_at', 'window_expires_at'] as const) {
        const value = source[field];
        if (value) max[field] = value;
      }
      if (source.window_expires_at) max.window_alarm_at = source.window_expires_at;
      const reopen = source.status === 'open' && target.status === 'closed' ? { status: 'open', closed_at: null } : {};
      await conversations.update(
        { _id: target.id },
        {
          $set: { updated_at: at, ...reopen, ...(later ? { last_message_preview: source.last_message_preview } : {}) },
          $max: max,
          $inc: { unread_count: source.unread_count },
        },
        { session },
      );
      await conversations.model.deleteOne({ _id: source.id, org_id: source.org_id }, { session });
      totals.invalidate(source.org_id);
    },

    /** A change computed from revision `rev`, with its events; throws WriteConflict when another writer got there first. */
    updateAtRevision: (orgId: string, id: string, rev: number, set: Partial<ConversationRecord>, events: OutboxEntry[]) =>
      conversations.updateAtRevision({ _id: id, org_id: orgId }, rev, set, { events }),
  };
}
