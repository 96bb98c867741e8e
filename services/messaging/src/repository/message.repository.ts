import {
  isDuplicateKeyError,
  keyset,
  type KeysetPage,
  type KeysetPosition,
  type Order,
  OUTBOX_FIELDS,
  type OutboxEntry,
  outboxOnInsert,
  recordOf,
  updateWithEvents,
  toPage,
} from '@crm/shared';
import type { Channel } from '@crm/shared/schemas';
import { Schema, type ClientSession, type Connection, type FilterQuery } from 'mongoose';

export type MessageStatus = 'queued' | 'sent' | 'delivered' | 'read' | 'failed' | 'received';

export interface MessageRecord {
  id: string;
  org_id: string;
  conversation_id: string;
  contact_id: string;
  channel: Channel;
  instance_id: string;
  direction: 'inbound' | 'outbound';
  type: string;
  content: string | null;
  media: { url: string; mime_type: string | null; file_name: string | null } | null;
  template: { name: string; language: string } | null;
  status: MessageStatus;
  sender: { type: string; id: string | null; name: string | null };
  external_id: string | null;
  error: { code: string; message: string } | null;
  edited_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

type MessageDoc = Omit<MessageRecord, 'id'> & { _id: string; provider_key: string | null };

const schema = new Schema<MessageDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    conversation_id: { type: String, required: true },
    contact_id: { type: String, required: true },
    channel: { type: String, required: true },
    instance_id: { type: String, required: true },
    direction: { type: String, required: true },
    type: { type: String, required: true },
    content: { type: String, default: null },
    media: { type: Object, default: null },
    template: { type: Object, default: null },
    status: { type: String, required: true },
    sender: { type: Object, required: true },
    external_id: { type: String, default: null },
    provider_key: { type: String, default: null },
    error: { type: Object, default: null },
    edited_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    ...OUTBOX_FIELDS,
  },
  { versionKey: false, collection: 'messages', minimize: false },
);
schema.index({ org_id: 1, conversation_id: 1, created_at: -1, _id: -1 });
// The provider's message id on one number: an inbound callback retried by the provider inserts nothing new.
schema.index({ provider_key: 1 }, { unique: true, partialFilterExpression: { provider_key: { $type: 'string' } } });
schema.index({ _outbox_pending: 1 });
// Warm-up limits count a number's outbound messages of the last 24 hours.
schema.index({ instance_id: 1, direction: 1, created_at: -1 });

/** Statuses a status callback may move a message from: statuses only move forward; 131042 fails a sent message. */
const MOVES_FROM: Record<string, MessageStatus[]> = {
  sent: ['queued'],
  delivered: ['queued', 'sent'],
  read: ['queued', 'sent', 'delivered'],
  failed: ['queued', 'sent', 'delivered'],
};

export interface MessageQuery {
  order: Order;
  limit: number;
  after: KeysetPosition | undefined;
  created_after?: string | null;
}

export type MessageRepository = ReturnType<typeof createMessageRepository>;

export const providerKey = (instanceId: string, externalId: string): string => `${instanceId}:${externalId}`;

export function createMessageRepository(db: Connection) {
  const Message = db.model<MessageDoc>('Message', schema);
  const toRecord = (doc: MessageDoc): MessageRecord => recordOf(doc, ['provider_key']);
  return {
    collection: Message.collection,

    /**
     * Inserts the message with its events; false when the provider id on this number is already stored. In a
     * transaction (`session`) that duplicate is thrown instead, so the transaction aborts as a whole.
     */
    async insert(record: MessageRecord, events: OutboxEntry[], session?: ClientSession): Promise<boolean> {
      const { id, ...rest } = record;
      const key = record.external_id ? providerKey(record.instance_id, record.external_id) : null;
      try {
        await Message.collection.insertOne({ _id: id, ...rest, provider_key: key, ...outboxOnInsert(events) } as never, { session });
        return true;
      } catch (error) {
        if (isDuplicateKeyError(error) && !session) return false;
        throw error;
      }
    },

    async getById(orgId: string, id: string): Promise<MessageRecord | null> {
      const doc = await Message.findOne({ _id: id, org_id: orgId }).lean<MessageDoc>();
      return doc ? toRecord(doc) : null;
    },

    async getByExternalId(instanceId: string, externalId: string): Promise<MessageRecord | null> {
      const doc = await Message.findOne({ provider_key: providerKey(instanceId, externalId) }).lean<MessageDoc>();
      return doc ? toRecord(doc) : null;
    },

    /** Outbound messages a number sent since `since` (its warm-up volume). */
    async countOutboundSince(orgId: string, instanceId: string, since: Date): Promise<number> {
      return Message.countDocuments({ org_id: orgId, instance_id: instanceId, direction: 'outbound', created_at: { $gte: since } });
    },

    async countInConversation(orgId: string, conversationId: string): Promise<number> {
      return Message.countDocuments({ org_id: orgId, conversation_id: conversationId });
    },

    async list(orgId: string, conversationId: string, query: MessageQuery): Promise<KeysetPage<MessageRecord>> {
      const after = query.after ? { ...query.after, value: new Date(String(query.after.value)) } : undefined;
      const { filter: position, sort } = keyset('created_at', query.order, after);
      const conditions: FilterQuery<MessageDoc>[] = [{ org_id: orgId, conversation_id: conversationId }];
      if (query.created_after) conditions.push({ created_at: { $gte: new Date(query.created_after) } });
      if (after) conditions.push(position as FilterQuery<MessageDoc>);
      const rows = await Message.find({ $and: conditions })
        .sort(sort)
        .limit(query.limit + 1)
        .lean<MessageDoc[]>();
      const page = toPage(rows, query.limit, (row) => row.created_at.toISOString());
      return { ...page, items: page.items.map(toRecord) };
    },

    /**
     * A provider status callback on the message as the caller read it: one conditional update that only moves the
     * status forward, with its event. Null when it is already at (or past) that status: repeats change nothing.
     * When another status changed the message since it was read (a race), it is read again and tried again.
     */
    async applyStatus(
      read: MessageRecord,
      status: MessageStatus,
      error: MessageRecord['error'],
      at: Date,
      events: (next: MessageRecord) => OutboxEntry[],
    ): Promise<MessageRecord | null> {
      let current: MessageRecord | null = read;
      for (let attempt = 0; current && attempt < 3; attempt++) {
        if (!MOVES_FROM[status]?.includes(current.status)) return null;
        const next: MessageRecord = { ...current, status, error: error ?? current.error, updated_at: at };
        const doc = await Message.findOneAndUpdate(
          { _id: current.id, status: current.status },
          updateWithEvents({ status, error: next.error, updated_at: at }, events(next)),
          { new: true },
        ).lean<MessageDoc>();
        if (doc) return toRecord(doc);
        const again: MessageDoc | null = await Message.findOne({ _id: current.id }).lean<MessageDoc>();
        current = again ? toRecord(again) : null;
      }
      return null;
    },

    /** An edit callback: the new text with its event; null when this edit (same time) is already applied. */
    async applyEdit(
      id: string,
      content: string,
      editedAt: Date,
      events: (next: MessageRecord) => OutboxEntry[],
    ): Promise<MessageRecord | null> {
      const current = await Message.findOne({ _id: id }).lean<MessageDoc>();
      if (!current || (current.edited_at && current.edited_at >= editedAt)) return null;
      const next = toRecord({ ...current, content, edited_at: editedAt, updated_at: editedAt });
      const doc = await Message.findOneAndUpdate(
        { _id: id, edited_at: current.edited_at },
        updateWithEvents({ content, edited_at: editedAt, updated_at: editedAt }, events(next)),
        { new: true },
      ).lean<MessageDoc>();
      return doc ? toRecord(doc) : null;
    },
  };
}
