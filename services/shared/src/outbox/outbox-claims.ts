import type { Collection, Document, UpdateFilter } from 'mongodb';
import { idFirst } from '../mongo/filter-routing';
import type { OutboxEntry } from './domain-event';
import { leaseFree } from './outbox-fields';

/** A record leased to one relay, with the entries it publishes. */
export interface ClaimedRecord {
  id: Document['_id'];
  entries: OutboxEntry[];
}

const PENDING = { _outbox_pending: true } as const;
/** The records of `id` (a value or `{$in: […]}`) that also match `filter`, as the store reads them fastest. */
const byId = (id: unknown, filter: Document): Document => idFirst({ _id: id, ...filter });
const entriesOf = (record: Document): ClaimedRecord => ({ id: record._id, entries: (record._outbox as OutboxEntry[] | undefined) ?? [] });

/**
 * One conditional update per record, sent as one command. Not an updateMany: on SecantusDB a multi-document update
 * that waits for a document an open transaction wrote deadlocks with that transaction's next write to it (neither
 * ever ends: the store's transaction reaper cannot abort a transaction whose command is waiting), and the relay
 * runs beside every writer — a merge's transaction writes each relinked deal twice. Single-document updates wait
 * for the commit and then apply (outbox-claims.int.test.ts).
 */
async function eachById(
  collection: Collection<Document>,
  ids: unknown[],
  filter: Document,
  update: UpdateFilter<Document> | Document[],
): Promise<number> {
  if (ids.length === 0) return 0;
  // Shaped as a read by id (filter-routing.ts): `_outbox_pending` and `_outbox_lease_owner` lead indexes too.
  const operations = ids.map((id) => ({ updateOne: { filter: byId(id, filter), update } }));
  return (await collection.bulkWrite(operations, { ordered: false })).modifiedCount;
}

/**
 * The outbox relay's operations on one collection's records. Every one is a conditional write or an indexed read
 * the store applies per document atomically, so of several relays that want one record, exactly one leases it.
 */
export class OutboxClaims {
  constructor(
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  /**
   * Leases up to `limit` pending records that nobody holds (the sweep: records whose writer's relay died, or
   * that a command-line tool wrote) with one command of conditional updates. The entries are read with the candidates: when
   * every candidate was leased here, they are the ones to publish (an entry appended after the read stays
   * pending, since the acknowledgement removes only published ids); when another relay won some, the records
   * leased here are read again.
   */
  async pending(collection: Collection<Document>, limit: number): Promise<ClaimedRecord[]> {
    const now = new Date();
    const candidates = await collection
      .find({ ...PENDING, ...leaseFree(now) }, { projection: { _outbox: 1 } })
      .limit(limit)
      .toArray();
    if (candidates.length === 0) return [];
    const ids = candidates.map((candidate) => candidate._id);
    const modifiedCount = await eachById(collection, ids, { ...PENDING, ...leaseFree(now) }, { $set: this.lease(now) });
    const leased =
      modifiedCount === candidates.length
        ? candidates
        : await collection.find(byId({ $in: ids }, { _outbox_lease_owner: this.owner }), { projection: { _outbox: 1 } }).toArray();
    return leased.map(entriesOf);
  }

  /**
   * Leases the records this process's writes named, each with one conditional update that answers its entries
   * (one round trip, the updates of a batch in parallel). A record that another relay holds, or that has nothing
   * pending any more, is skipped: its holder looks again after its acknowledgement (stillPending).
   */
  async byIds(collection: Collection<Document>, ids: unknown[]): Promise<ClaimedRecord[]> {
    const now = new Date();
    const leased = await Promise.all(
      ids.map((id) =>
        collection.findOneAndUpdate(
          byId(id, { ...PENDING, ...leaseFree(now) }),
          { $set: this.lease(now) },
          { returnDocument: 'after', projection: { _outbox: 1 } },
        ),
      ),
    );
    return leased.flatMap((record) => (record ? [entriesOf(record)] : []));
  }

  /**
   * Removes the published entries and releases the leases of a batch in one command, each document atomically.
   * Entries a writer appended meanwhile stay, and keep their record pending.
   */
  async acknowledge(collection: Collection<Document>, records: ClaimedRecord[]): Promise<void> {
    const published = records.flatMap((record) => record.entries.map((entry) => entry.id));
    await eachById(
      collection,
      records.map((record) => record.id),
      { _outbox_lease_owner: this.owner },
      [
        { $set: { _outbox: { $filter: { input: '$_outbox', cond: { $not: [{ $in: ['$$this.id', published] }] } } } } },
        { $set: { _outbox_pending: { $gt: [{ $size: '$_outbox' }, 0] } } },
        { $unset: ['_outbox_lease_until', '_outbox_lease_owner'] },
      ],
    );
  }

  /**
   * Which of the acknowledged records are still pending: a writer of another replica appended to them while they
   * were leased here, and its relay, finding them leased, left them to this one.
   */
  async stillPending(collection: Collection<Document>, records: ClaimedRecord[]): Promise<unknown[]> {
    const ids = records.map((record) => record.id);
    const pending = await collection.find(byId({ $in: ids }, PENDING), { projection: { _id: 1 } }).toArray();
    return pending.map((record) => record._id as unknown);
  }

  /** When the earliest lease of a pending record of `collection` expires (Infinity: none is leased). */
  async earliestLease(collection: Collection<Document>): Promise<number> {
    const record = await collection.findOne(
      { ...PENDING, _outbox_lease_until: { $ne: null } },
      { projection: { _outbox_lease_until: 1 }, sort: { _outbox_lease_until: 1 } },
    );
    return (record?._outbox_lease_until as Date | undefined)?.getTime() ?? Infinity;
  }

  private lease(now: Date) {
    return { _outbox_lease_until: new Date(now.getTime() + this.leaseMs), _outbox_lease_owner: this.owner };
  }
}
