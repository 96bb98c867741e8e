import {
  type Order,
  type OutboxEntry,
  type PageRequest,
  RecordStore,
  retryOnConflict,
  type Storage,
  type StoreFilter,
  WriteConflict,
} from '@crm/shared';
import type { Channel } from '@crm/shared/schemas';
import { Schema, type ClientSession } from 'mongoose';
import { RecentMessages } from './recent-messages';

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
  /** Set when the contact deleted the message for everyone: it leaves the reads, its text is not kept. */
  deleted_at?: Date | null;
  /** What sent it, carried by every event about it: the broadcast, or the AI agent's run. */
  broadcast_id?: string | null;
  agent_run_id?: string | null;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema(
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
    deleted_at: { type: Date, default: null },
    broadcast_id: { type: String, default: null },
    agent_run_id: { type: String, default: null },
    // Internal: the reactions already applied (provider ids), so that a retried callback raises nothing new.
    reaction_keys: { type: [String], default: undefined },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'messages', minimize: false },
);
schema.index({ org_id: 1, conversation_id: 1, created_at: -1, _id: -1 });
// The provider's message id on one number: an inbound callback retried by the provider inserts nothing new.
schema.index({ provider_key: 1 }, { unique: true, partialFilterExpression: { provider_key: { $type: 'string' } } });
// Warm-up limits count a number's outbound messages of the last 24 hours.
schema.index({ instance_id: 1, direction: 1, created_at: -1 });

/** Statuses a status callback may move a message from: statuses only move forward; 131042 fails a sent message. */
const MOVES_FROM: Record<string, MessageStatus[]> = {
  sent: ['queued'],
  delivered: ['queued', 'sent'],
  read: ['queued', 'sent', 'delivered'],
  failed: ['queued', 'sent', 'delivered'],
};

export interface MessageQuery extends PageRequest {
  order: Order;
  created_after?: string | null;
}

export type MessageRepository = ReturnType<typeof createMessageRepository>;

export const providerKey = (instanceId: string, externalId: string): string => `${instanceId}:${externalId}`;

/** Statuses after which no status callback is expected: the message leaves the recent ones. */
const LAST_STATUSES: MessageStatus[] = ['read', 'failed'];
/** Messages whose statuses are still expected, kept per replica (a broadcast at 80/s with statuses ~1 s later keeps ~100). */
const RECENT_CAPACITY = 2_000;

export function createMessageRepository(storage: Storage) {
  const messages = new RecordStore<MessageRecord>(storage, {
    model: 'Message',
    schema,
    what: 'message',
    outbox: true,
    // The provider's message id on one number: its unique index makes a retried callback insert nothing.
    internal: ['provider_key', 'reaction_keys'],
    derive: (fields) =>
      fields.external_id !== undefined && fields.instance_id !== undefined
        ? { provider_key: fields.external_id ? providerKey(fields.instance_id, fields.external_id) : null }
        : {},
  });
  const recent = new RecentMessages<MessageRecord>(RECENT_CAPACITY);
  const keyOf = (record: MessageRecord) => (record.external_id ? providerKey(record.instance_id, record.external_id) : undefined);
  const remember = (record: MessageRecord) => {
    const key = keyOf(record);
    if (!key || record.direction !== 'outbound') return;
    if (LAST_STATUSES.includes(record.status)) recent.forget(key);
    else recent.set(key, record);
  };
  return {
    collection: messages.collection,

    /**
     * A message this replica is storing (after its provider accepted it): its status callbacks wait for the write
     * and take the message as stored (getForStatus), instead of reading it or asking the provider to retry.
     */
    storing(record: MessageRecord, stored: Promise<MessageRecord | null>): void {
      const key = keyOf(record);
      if (!key || record.direction !== 'outbound') return;
      recent.storing(key, stored);
      stored.then(
        (message) => {
          recent.stored(key, stored);
          if (message) remember(message);
        },
        () => recent.stored(key, stored),
      );
    },

    /**
     * Inserts the message with its events; false when the provider id on this number is already stored. In a
     * transaction (`session`) that duplicate is thrown instead, so the transaction aborts as a whole.
     */
    insert: (record: MessageRecord, events: OutboxEntry[], session?: ClientSession) => messages.insertIfNew(record, { events, session }),

    /** A message as the API reads it: a message the contact deleted is gone. */
    getById: (orgId: string, id: string) => messages.findOne({ _id: id, org_id: orgId, deleted_at: null }),

    /** Also a deleted message: a send repeated after a crash must find the message it stored. */
    getStored: (orgId: string, id: string) => messages.findOne({ _id: id, org_id: orgId }),

    getByExternalId: (instanceId: string, externalId: string) => messages.findOne({ provider_key: providerKey(instanceId, externalId) }),

    /**
     * The message a status callback is about: as this replica is storing it, or its recent copy, possibly stale
     * (only for applyStatus, whose write is conditional on what the copy says); otherwise read.
     */
    async getForStatus(instanceId: string, externalId: string): Promise<MessageRecord | null> {
      const key = providerKey(instanceId, externalId);
      const stored = await recent.whenStored(key)?.catch(() => null);
      return stored ?? recent.get(key) ?? messages.findOne({ provider_key: key });
    },

    /** Outbound messages a number sent since `since` (its warm-up volume). */
    countOutboundSince: (orgId: string, instanceId: string, since: Date, session?: ClientSession) =>
      messages.count({ org_id: orgId, instance_id: instanceId, direction: 'outbound', created_at: { $gte: since } }, { session }),

    countInConversation: (orgId: string, conversationId: string) =>
      messages.count({ org_id: orgId, conversation_id: conversationId, deleted_at: null }),

    list(orgId: string, conversationId: string, query: MessageQuery) {
      const conditions: StoreFilter[] = [{ org_id: orgId, conversation_id: conversationId, deleted_at: null }];
      if (query.created_after) conditions.push({ created_at: { $gte: new Date(query.created_after) } });
      // A conversation's messages are few next to an organization's: read whole, not in windows (record-store.ts).
      return messages.listPage(conditions, { field: 'created_at', order: query.order, type: 'date' }, query, { few: true });
    },

    /**
     * A provider status callback on the message as the caller read it: one update conditional on the message being
     * as read (its status, its last change, its conversation and contact: what the event carries), that only moves
     * the status forward, with its event. Null when it is already at (or past) that status: repeats change nothing.
     * When anything changed the message since it was read (another status, an edit, a merge, or a stale recent
     * copy), it is read again and tried again (the conflict policy).
     */
    applyStatus(
      read: MessageRecord,
      status: MessageStatus,
      error: MessageRecord['error'],
      at: Date,
      events: (next: MessageRecord) => OutboxEntry[],
    ): Promise<MessageRecord | null> {
      let current: MessageRecord | null = read;
      return retryOnConflict(async () => {
        if (!current || !MOVES_FROM[status]?.includes(current.status)) return null;
        const next: MessageRecord = { ...current, status, error: error ?? current.error, updated_at: at };
        const updated = await messages.update(
          {
            _id: current.id,
            status: current.status,
            updated_at: current.updated_at,
            conversation_id: current.conversation_id,
            contact_id: current.contact_id,
          },
          { status, error: next.error, updated_at: at },
          { events: events(next) },
        );
        if (updated) {
          remember(updated);
          return updated;
        }
        current = await messages.findOne({ _id: current.id });
        if (current) remember(current);
        throw new WriteConflict('message');
      });
    },

    /**
     * An edit callback: the new text with its event, conditional on the edit the message carried when read; null
     * when this edit (or a later one) is already applied. A concurrent edit makes it read and try again.
     */
    applyEdit(id: string, content: string, editedAt: Date, events: (next: MessageRecord) => OutboxEntry[]): Promise<MessageRecord | null> {
      return retryOnConflict(async () => {
        const current = await messages.findOne({ _id: id });
        if (!current || (current.edited_at && current.edited_at >= editedAt)) return null;
        const next = { ...current, content, edited_at: editedAt, updated_at: editedAt };
        const updated = await messages.update(
          { _id: id, edited_at: current.edited_at },
          { content, edited_at: editedAt, updated_at: editedAt },
          { events: events(next) },
        );
        if (!updated) throw new WriteConflict('message');
        return updated;
      });
    },

    /** A merge: the messages of one conversation move to another conversation and contact. */
    moveConversation: (
      orgId: string,
      fromConversationId: string,
      to: { conversation_id: string; contact_id: string },
      session: ClientSession,
    ) => messages.updateMany({ org_id: orgId, conversation_id: fromConversationId }, to, { session }),

    /**
     * A reaction callback, applied once per provider reaction key (kept in a bounded list in the same conditional
     * update, so a retried callback matches nothing); null when it was already applied.
     */
    applyReaction(read: MessageRecord, key: string, at: Date, events: OutboxEntry[]): Promise<MessageRecord | null> {
      return messages.update(
        { _id: read.id, reaction_keys: { $ne: key } },
        { $set: { updated_at: at }, $push: { reaction_keys: { $each: [key], $slice: -REACTIONS_KEPT } } },
        { events },
      );
    },

    /**
     * A delete-for-everyone callback: the message leaves the reads and its text and media are dropped, with the
     * event (carrying the message as it was) in the same update; null when it was already deleted.
     */
    applyDelete(read: MessageRecord, at: Date, events: OutboxEntry[]): Promise<MessageRecord | null> {
      return messages.update(
        { _id: read.id, deleted_at: null },
        { deleted_at: at, content: null, media: null, updated_at: at },
        { events },
      );
    },
  };
}

/** Reaction keys remembered per message: providers retry a callback within minutes, not after 50 others. */
const REACTIONS_KEPT = 50;
