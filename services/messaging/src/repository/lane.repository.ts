import { RecordStore, type Storage } from '@crm/shared';
import { Schema } from 'mongoose';

export type LaneState = 'active' | 'paused' | 'done' | 'cancelled';

/**
 * The sending of one broadcast from one number. A replica holds a lane by a lease it renews while it sends; when
 * it dies the lease expires and another replica goes on where the recipients' statuses say. One holder per lane
 * keeps the number's pace and sends each recipient from one place.
 */
export interface LaneRecord {
  /** `<broadcast id>:<instance id>`. */
  id: string;
  org_id: string;
  broadcast_id: string;
  instance_id: string;
  state: LaneState;
  owner: string | null;
  lease_until: Date | null;
  updated_at: Date;
}

const schema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    broadcast_id: { type: String, required: true },
    instance_id: { type: String, required: true },
    state: { type: String, required: true },
    owner: { type: String, default: null },
    lease_until: { type: Date, default: null },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'broadcast_lanes', minimize: false },
);
schema.index({ state: 1, lease_until: 1 });
schema.index({ broadcast_id: 1 });

export type LaneRepository = ReturnType<typeof createLaneRepository>;

export function createLaneRepository(storage: Storage) {
  const lanes = new RecordStore<LaneRecord>(storage, { model: 'BroadcastLane', schema, what: 'broadcast lane' });
  const Lane = lanes.model;
  const free = (now: Date) => ({ $or: [{ lease_until: null }, { lease_until: { $lt: now } }] });

  return {
    collection: lanes.collection,

    /** One lane per number; a repeated call (a recipient builder that crashed after this) changes nothing. */
    async createFor(orgId: string, broadcastId: string, instanceIds: string[], state: LaneState, now: Date): Promise<void> {
      await Lane.bulkWrite(
        instanceIds.map((instanceId) => ({
          updateOne: {
            filter: { _id: `${broadcastId}:${instanceId}` },
            update: {
              $setOnInsert: {
                org_id: orgId,
                broadcast_id: broadcastId,
                instance_id: instanceId,
                state,
                owner: null,
                lease_until: null,
                updated_at: now,
              },
            },
            upsert: true,
          },
        })),
      );
    },

    /** Takes one active lane nobody holds (or whose holder's lease expired). */
    claim: (owner: string, now: Date, until: Date) =>
      lanes.update({ state: 'active', ...free(now) }, { owner, lease_until: until, updated_at: now }),

    /** Extends the holder's lease; false when the lane was paused, cancelled or taken over: the holder stops. */
    async renew(id: string, owner: string, now: Date, until: Date): Promise<boolean> {
      const result = await Lane.updateOne(
        { _id: id, owner, state: 'active', lease_until: { $gte: now } },
        { $set: { lease_until: until, updated_at: now } },
      );
      return result.modifiedCount > 0;
    },

    async release(id: string, owner: string): Promise<void> {
      await Lane.updateOne({ _id: id, owner }, { $set: { owner: null, lease_until: null } });
    },

    async finish(id: string, owner: string, now: Date): Promise<boolean> {
      const result = await Lane.updateOne(
        { _id: id, owner, state: 'active' },
        { $set: { state: 'done', owner: null, lease_until: null, updated_at: now } },
      );
      return result.modifiedCount > 0;
    },

    /** Pause, resume and cancel move every unfinished lane of a broadcast at once. */
    async setState(broadcastId: string, from: LaneState[], state: LaneState, now: Date): Promise<void> {
      await Lane.updateMany({ broadcast_id: broadcastId, state: { $in: from } }, { $set: { state, updated_at: now } });
    },

    async unfinished(broadcastId: string): Promise<number> {
      return Lane.countDocuments({ broadcast_id: broadcastId, state: { $in: ['active', 'paused'] } });
    },

    /** True when some active lane exists: the worker then looks for free ones often (a holder may die). */
    async anyActive(): Promise<boolean> {
      return (await Lane.exists({ state: 'active' })) !== null;
    },

    async deleteForBroadcast(broadcastId: string): Promise<void> {
      await Lane.deleteMany({ broadcast_id: broadcastId });
    },
  };
}
