import { type OutboxEntry, RecordStore, type Storage } from '@crm/shared';
import { Schema } from 'mongoose';

export type ReplayStatus = 'pending' | 'running' | 'completed' | 'cancelled';

/** A replay job: stored, with its position, so any replica resumes it after a restart. */
export interface ReplayRecord {
  id: string;
  org_id: string;
  webhook_id: string;
  status: ReplayStatus;
  since: Date;
  until: Date;
  /** The kinds asked for; empty: every kind the subscription receives. */
  types: string[];
  /** Events queued for delivery so far (the stored events of the window the subscription receives). */
  matched: number;
  /** The last event queued (oldest first by created_at, then id): the pages resume after it. */
  cursor: { created_at: Date; id: string } | null;
  /** Every matching event is queued; what remains is waiting for their outcomes. */
  enqueued: boolean;
  /** Final counts, stored when the replay completes (the deliveries expire before the replay does). */
  delivered: number;
  failed: number;
  created_at: Date;
  completed_at: Date | null;
  lease_owner: string | null;
  lease_until: Date | null;
  expires_at: Date;
}

const replaySchema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    webhook_id: { type: String, required: true },
    status: { type: String, required: true },
    since: { type: Date, required: true },
    until: { type: Date, required: true },
    types: { type: [String], default: [] },
    matched: { type: Number, default: 0 },
    cursor: { type: Schema.Types.Mixed, default: null },
    enqueued: { type: Boolean, default: false },
    delivered: { type: Number, default: 0 },
    failed: { type: Number, default: 0 },
    created_at: { type: Date, required: true },
    completed_at: { type: Date, default: null },
    lease_owner: { type: String, default: null },
    lease_until: { type: Date, default: null },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'replays', minimize: false },
);
replaySchema.index({ org_id: 1, webhook_id: 1, _id: 1 });
// The worker's queries: unfinished replays (to queue, or to settle).
replaySchema.index({ status: 1, enqueued: 1, lease_until: 1 });
replaySchema.index({ expires_at: 1 }, { expireAfterSeconds: 0 });

export type ReplayRepository = ReturnType<typeof createReplayRepository>;

export function createReplayRepository(storage: Storage) {
  const replays = new RecordStore<ReplayRecord>(storage, { model: 'Replay', schema: replaySchema, what: 'replay', outbox: true });
  const unfinished = { status: { $in: ['pending', 'running'] } };
  return {
    insert: (record: ReplayRecord) => replays.insert(record),

    getById: (orgId: string, webhookId: string, id: string) => replays.findOne({ _id: id, org_id: orgId, webhook_id: webhookId }),

    /** Leases one replay whose events are still to be queued and that no live replica holds. */
    claimToQueue: (owner: string, now: Date, leaseMs: number) =>
      replays.update(
        { ...unfinished, enqueued: false, $or: [{ lease_until: null }, { lease_until: { $lt: now } }] },
        { status: 'running', lease_owner: owner, lease_until: new Date(now.getTime() + leaseMs) },
        { sort: { created_at: 1 } },
      ),

    /** Records a queued page under this replica's lease (renewed); null when the lease was lost to another replica. */
    advance: (id: string, owner: string, change: { cursor: ReplayRecord['cursor']; added: number; enqueued: boolean; leaseUntil: Date }) =>
      replays.update({ _id: id, lease_owner: owner, ...unfinished }, {
        $set: { cursor: change.cursor, enqueued: change.enqueued, lease_until: change.enqueued ? null : change.leaseUntil },
        $inc: { matched: change.added },
      } as never),

    /** Replays whose events are all queued, waiting for their outcomes. */
    settling: (limit: number) => replays.findMany({ status: 'running', enqueued: true }, { sort: { created_at: 1 }, limit }),

    /** Ends a replay once, with its event: the conditional update lets only one replica do it. */
    finish: (record: ReplayRecord, set: Partial<ReplayRecord>, events: OutboxEntry[]) =>
      replays.update({ _id: record.id, status: record.status }, set, { events }),
  };
}
