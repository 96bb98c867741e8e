import { type PageRequest, RecordStore, toDocument, type Storage, type StoreFilter } from '@crm/shared';
import type { ExclusionReason } from '@crm/shared/schemas';
import { Schema, type ClientSession } from 'mongoose';
import type { BroadcastStats } from './broadcast.repository';

export type RecipientStatus = 'pending' | 'sent' | 'delivered' | 'read' | 'failed' | 'excluded';

/** One contact of a broadcast, written once at launch (`pending` or `excluded`), then moved by its send and statuses. */
export interface RecipientRecord {
  /** `<broadcast id>:<contact id>`: writing the list again after a crash inserts nothing twice. */
  id: string;
  org_id: string;
  broadcast_id: string;
  /** Position in the audience (oldest contact first): the send order. */
  seq: number;
  contact: { id: string; name: string };
  /** The number it is sent from, and its address there; null when excluded. */
  instance_id: string | null;
  address: string | null;
  status: RecipientStatus;
  exclusion_reason: ExclusionReason | null;
  /** Chosen when the list is written and sent to the provider as the idempotency key of the send. */
  message_id: string;
  /** The template parameters of this contact, resolved with their fallbacks when the list was written. */
  params: Record<string, string>;
  error: { code: string; message: string } | null;
  sent_at: Date | null;
  updated_at: Date;
}

const schema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    broadcast_id: { type: String, required: true },
    seq: { type: Number, required: true },
    contact: { type: Object, required: true },
    instance_id: { type: String, default: null },
    address: { type: String, default: null },
    status: { type: String, required: true },
    exclusion_reason: { type: String, default: null },
    message_id: { type: String, required: true },
    params: { type: Object, default: () => ({}) },
    error: { type: Object, default: null },
    sent_at: { type: Date, default: null },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'broadcast_recipients', minimize: false },
);
schema.index({ broadcast_id: 1, seq: 1 });
schema.index({ broadcast_id: 1, status: 1, seq: 1 });
// A lane walks its number's pending recipients in send order.
schema.index({ broadcast_id: 1, instance_id: 1, status: 1, seq: 1 });
// Provider status callbacks find the recipient by its message.
schema.index({ message_id: 1 }, { unique: true });

/** Status callbacks move a recipient forward only; `failed` may follow an accepted send (e.g. 131042). */
const MOVES_FROM: Record<'delivered' | 'read' | 'failed', RecipientStatus[]> = {
  delivered: ['pending', 'sent'],
  read: ['pending', 'sent', 'delivered'],
  failed: ['pending', 'sent', 'delivered'],
};

export type RecipientRepository = ReturnType<typeof createRecipientRepository>;

export function createRecipientRepository(storage: Storage) {
  const recipients = new RecordStore<RecipientRecord>(storage, { model: 'BroadcastRecipient', schema, what: 'broadcast recipient' });
  const Recipient = recipients.model;

  return {
    collection: recipients.collection,

    /** Inserts a page of the list; rows already written by an earlier (crashed) attempt are kept as they are. */
    async insertMany(records: RecipientRecord[]): Promise<void> {
      if (records.length === 0) return;
      try {
        await recipients.collection.insertMany(records.map(toDocument) as never[], { ordered: false });
      } catch (error) {
        const writeErrors = (error as { writeErrors?: Array<{ code?: number }> }).writeErrors;
        const onlyDuplicates = Array.isArray(writeErrors) && writeErrors.every((e) => e.code === 11000);
        if (!onlyDuplicates && (error as { code?: number }).code !== 11000) throw error;
      }
    },

    /** The next recipients a lane sends, in order: pending ones of this number after position `afterSeq`. */
    nextPending: (broadcastId: string, instanceId: string, afterSeq: number, limit: number) =>
      recipients.findMany(
        { broadcast_id: broadcastId, instance_id: instanceId, status: 'pending', seq: { $gt: afterSeq } },
        { sort: { seq: 1 }, limit },
      ),

    async countPending(broadcastId: string, instanceId?: string, session?: ClientSession): Promise<number> {
      return Recipient.countDocuments({
        broadcast_id: broadcastId,
        status: 'pending',
        ...(instanceId ? { instance_id: instanceId } : {}),
      }).session(session ?? null);
    },

    /** The provider accepted the send: pending → sent, in the transaction that stores the message. */
    async markSent(id: string, at: Date, session?: ClientSession): Promise<boolean> {
      const result = await Recipient.updateOne(
        { _id: id, status: 'pending' },
        { $set: { status: 'sent', sent_at: at, updated_at: at } },
        { session },
      );
      return result.modifiedCount > 0;
    },

    /** The provider refused the send (or never confirmed it): nothing left; the error is the provider's. */
    async markFailed(id: string, error: { code: string; message: string }, at: Date): Promise<boolean> {
      const result = await Recipient.updateOne({ _id: id, status: 'pending' }, { $set: { status: 'failed', error, updated_at: at } });
      return result.modifiedCount > 0;
    },

    /**
     * A delivery of the recipient's message, or its reading: the recipient moves forward to it (a repeat or a late
     * one changes nothing). No answer: the write goes beside the other status writes of the moment.
     */
    moveStatus: (messageId: string, status: 'delivered' | 'read', at: Date) =>
      recipients.updateBeside({ message_id: messageId, status: { $in: MOVES_FROM[status] } }, { $set: { status, updated_at: at } }),

    /** A delivery status of the recipient's message; the record before the change, or null when nothing changed. */
    applyStatus: (messageId: string, status: 'delivered' | 'read' | 'failed', error: RecipientRecord['error'], at: Date) =>
      recipients.update(
        { message_id: messageId, status: { $in: MOVES_FROM[status] } },
        { status, updated_at: at, ...(error ? { error } : {}) },
        { before: true },
      ),

    list(broadcastId: string, query: PageRequest & { status?: string | null }) {
      const conditions: StoreFilter[] = [{ broadcast_id: broadcastId }];
      if (query.status) conditions.push({ status: query.status });
      // seq is unique within a broadcast: its index serves the order alone.
      return recipients.listPage(conditions, { field: 'seq', order: 'asc', type: 'number', unique: true }, query);
    },

    /**
     * The exact statistics, counted from the recipients: `sent` counts every send the provider accepted (also those
     * it later failed), `delivered` includes read ones, `total` leaves out the excluded.
     */
    async countStats(broadcastId: string): Promise<BroadcastStats> {
      const rows = await Recipient.aggregate<{ _id: { status: RecipientStatus; accepted: boolean }; count: number }>([
        { $match: { broadcast_id: broadcastId } },
        { $group: { _id: { status: '$status', accepted: { $ne: ['$sent_at', null] } }, count: { $sum: 1 } } },
      ]);
      const stats: BroadcastStats = { total: 0, sent: 0, delivered: 0, read: 0, failed: 0, excluded: 0 };
      for (const { _id: group, count } of rows) {
        if (group.status === 'excluded') stats.excluded += count;
        else stats.total += count;
        if (group.accepted) stats.sent += count;
        if (group.status === 'delivered' || group.status === 'read') stats.delivered += count;
        if (group.status === 'read') stats.read += count;
        if (group.status === 'failed') stats.failed += count;
      }
      return stats;
    },

    async deleteForBroadcast(broadcastId: string): Promise<void> {
      await Recipient.deleteMany({ broadcast_id: broadcastId });
    },
  };
}
