import { groupBy, type RecordStore } from '@crm/shared';
import type { AttemptLog, AttemptLogEntry } from './attempt-log';
import type { DeliveryRecord, DeliveryStatus } from './delivery.record';

/** One attempt to store: where its delivery goes next, and the attempt's entry in the log. */
export interface AttemptWrite {
  id: string;
  /** The attempt count read when it was leased: the write is conditional on it and on the lease. */
  attemptsBefore: number;
  status: DeliveryStatus;
  next_attempt_at: Date | null;
  entry: AttemptLogEntry;
}

const DUE = { status: 'pending' } as const;
const freeLease = (now: Date) => ({ $or: [{ lease_until: null }, { lease_until: { $lt: now } }] });

/**
 * The delivery worker's side of the `deliveries` collection: system jobs across organizations (claiming due
 * attempts, leases, storing a batch of outcomes), each a constant number of round trips whatever the batch size.
 */
export function deliveryQueueMethods(deliveries: RecordStore<DeliveryRecord>, attemptLog: AttemptLog) {
  const Delivery = deliveries.model;
  return {
    /** Stores new deliveries in one round trip; those already stored (a re-consumed event) are left out of the answer. */
    // Any failure but "already stored" fails the batch (the consumer retries it).
    insertNew: (records: DeliveryRecord[]): Promise<DeliveryRecord[]> => deliveries.insertManyNew(records),

    /**
     * The records whose dedup key is not stored yet, in one indexed read: a re-read event's deliveries were sent
     * and stored before, and must not be sent again (the fan-out sends before it stores: unstored-part.ts).
     */
    async notStored(records: DeliveryRecord[]): Promise<DeliveryRecord[]> {
      if (records.length === 0) return [];
      const stored = await Delivery.find({ dedup_key: { $in: records.map((record) => record.dedup_key) } }, { dedup_key: 1, _id: 0 }).lean<
        { dedup_key: string }[]
      >();
      if (stored.length === 0) return records;
      const taken = new Set(stored.map((record) => record.dedup_key));
      return records.filter((record) => !taken.has(record.dedup_key));
    },

    /**
     * Leases up to `limit` due attempts to `owner`, oldest due first, leaving out the subscriptions in `exclude`
     * (whose queues are full here). One conditional update leases them all: of several replicas that saw the same
     * candidates, each delivery goes to exactly one.
     */
    async claimDue(now: Date, limit: number, leaseMs: number, owner: string, exclude: string[]): Promise<DeliveryRecord[]> {
      const due = { ...DUE, next_attempt_at: { $lte: now }, ...(exclude.length > 0 ? { webhook_id: { $nin: exclude } } : {}) };
      const candidates = await Delivery.find({ ...due, ...freeLease(now) }, { _id: 1 })
        .sort({ next_attempt_at: 1 })
        .limit(limit)
        .lean<{ _id: string }[]>();
      if (candidates.length === 0) return [];
      const ids = candidates.map((candidate) => candidate._id);
      const until = new Date(now.getTime() + leaseMs);
      await Delivery.updateMany({ _id: { $in: ids }, ...due, ...freeLease(now) }, { $set: { lease_until: until, lease_owner: owner } });
      return deliveries.findMany({ _id: { $in: ids }, lease_owner: owner, lease_until: until });
    },

    /**
     * Stores a batch of attempts and releases their leases: one insert of their log entries, then one update per
     * group of deliveries that move alike (same attempt count, same status and due time: all first successes are
     * one group), in one round trip. The local store's cost is per update statement, so a statement per delivery
     * recorded ~1,000 attempts/s (docs/performance.md). Each update is conditional on the lease and on the attempt
     * count read at claim time: if a lease was lost (this replica stalled past it), the other replica's outcome
     * wins. The entry goes first: a crash between the two leaves an attempt that was made in the log and the
     * delivery still leased, attempted again once the lease runs out. Returns how many deliveries were updated.
     */
    async recordAttempts(owner: string, writes: AttemptWrite[]): Promise<number> {
      if (writes.length === 0) return 0;
      await attemptLog.append(writes.map((write) => write.entry));
      const groups = groupBy(writes, (write) => `${write.attemptsBefore} ${write.status} ${write.next_attempt_at?.getTime() ?? ''}`);
      const operations = [...groups.values()].map((group) => {
        const [{ attemptsBefore, status, next_attempt_at }] = group as [AttemptWrite];
        return {
          updateMany: {
            filter: { _id: { $in: group.map((write) => write.id) }, lease_owner: owner, attempt: attemptsBefore },
            update: { $set: { status, attempt: attemptsBefore + 1, next_attempt_at, lease_until: null, lease_owner: null } },
          },
        };
      });
      // Ids are strings here, not the driver's default ObjectId: its typing does not see that.
      const result = await deliveries.collection.bulkWrite(operations as never, { ordered: false });
      return result.modifiedCount;
    },

    /** Extends the leases of deliveries this replica holds in memory (queued behind a slow endpoint). */
    async renewLeases(ids: string[], owner: string, until: Date): Promise<void> {
      if (ids.length > 0) await Delivery.updateMany({ _id: { $in: ids }, lease_owner: owner }, { $set: { lease_until: until } });
    },

    /** Gives leased deliveries back, still due, for any replica to claim. */
    async releaseLeases(ids: string[], owner: string): Promise<void> {
      if (ids.length > 0)
        await Delivery.updateMany({ _id: { $in: ids }, lease_owner: owner }, { $set: { lease_until: null, lease_owner: null } });
    },

    /** Parks due attempts of a paused subscription until it is reactivated (next_attempt_at null: never due). */
    async hold(ids: string[], owner: string): Promise<void> {
      if (ids.length > 0)
        await Delivery.updateMany(
          { _id: { $in: ids }, lease_owner: owner },
          { $set: { next_attempt_at: null, lease_until: null, lease_owner: null } },
        );
    },

    /**
     * When the worker has something to do next: the earliest due attempt (of the subscriptions not in `exclude`)
     * or expiring lease (a replica that died holding it). Null when nothing is pending.
     */
    async nextWakeAt(exclude: string[]): Promise<Date | null> {
      const others = exclude.length > 0 ? { webhook_id: { $nin: exclude } } : {};
      const [due, lease] = await Promise.all([
        Delivery.findOne({ ...DUE, ...others, next_attempt_at: { $ne: null }, lease_until: null }, { next_attempt_at: 1 })
          .sort({ next_attempt_at: 1 })
          .lean<Partial<DeliveryRecord>>(),
        Delivery.findOne({ ...DUE, lease_until: { $ne: null } }, { lease_until: 1 })
          .sort({ lease_until: 1 })
          .lean<Partial<DeliveryRecord>>(),
      ]);
      const times = [due?.next_attempt_at, lease?.lease_until]
        .filter((time): time is Date => time instanceof Date)
        .map((time) => time.getTime());
      return times.length > 0 ? new Date(Math.min(...times)) : null;
    },
  };
}
