import type { Collection, Document } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { withTimeout } from '../concurrency/with-timeout';
import type { EventBus } from '../kafka/event-bus';
import type { Logger } from '../logger';
import { toDomainEvent, type OutboxEntry } from './domain-event';
import { countPublished, observePendingEvents } from './outbox-metrics';
import type { OutboxSignal } from './outbox-signal';

export interface OutboxRelayOptions {
  /** The process's outbox collections, and the writes that wake the relay (the storage kit's signal). */
  outbox: OutboxSignal;
  bus: EventBus;
  topic: string;
  logger: Logger;
  /** Records leased per collection and pass. */
  batchSize?: number;
  /** How long a lease keeps other replicas off a record being published. */
  leaseMs?: number;
  /**
   * How long a nudged relay waits for more writes before its pass, so that a stream of writes shares passes
   * (each pass costs a few round trips to the store however many records it carries).
   */
  coalesceMs?: number;
  /**
   * The longest sleep with nothing to publish. Writes of this process wake the relay at once and expiring
   * leases at their due time; this only catches records whose writer died between its write and the wake.
   */
  idleCheckMs?: number;
}

interface ClaimedRecord {
  id: Document['_id'];
  entries: OutboxEntry[];
}

const PENDING = { _outbox_pending: true } as const;
const FLUSH_TIMEOUT_MS = 5_000;
const leaseFree = (now: Date) => ({ $or: [{ _outbox_lease_until: null }, { _outbox_lease_until: { $lt: now } }] });

/**
 * Publishes embedded outbox entries to Kafka. Records are leased before publishing so that replicas do not
 * publish them together; entries are removed only after the broker acknowledged them (acks: all). A crash after
 * the publish and before the removal publishes again: consumers deduplicate by event id.
 *
 * It does no work when idle and little under load: every query is on the `_outbox_pending` index; every write of
 * this process that gave events to a record signals its collection (the storage kit does, so no writer can forget),
 * and the next pass reads only those collections; a batch is leased and acknowledged with one update each, whatever
 * its size. Every collection is read at start, when a lease it saw is due to expire (its holder may have died), and
 * otherwise once per `idleCheckMs`.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  /** Collections written since the last pass began; the next pass reads them. */
  private dirty = new Set<string>();
  /** The next pass reads every collection (at start, and on the idle check). */
  private sweep = true;
  private stopped = true;
  private loop: Promise<void> | undefined;
  /** The earliest lease of a pending record seen, and when it was read (see idleFor). */
  private earliestLease = Infinity;
  private leasesReadAt = 0;
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  /** Acknowledgements in progress: the next pass does not wait for them (their records stay leased meanwhile). */
  private readonly acknowledging = new Set<Promise<void>>();
  private stopObserving: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;
  private collections: Collection<Document>[] = [];

  constructor(private readonly options: OutboxRelayOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.collections = this.options.outbox.collections();
    this.unsubscribe = this.options.outbox.subscribe((collection) => this.nudge(collection));
    this.stopObserving = observePendingEvents(this.collections);
    this.loop = this.run();
  }

  /** Wakes the relay right after a write that gave events to a record of `collection`, so they leave at once. */
  nudge(collection: string): void {
    this.dirty.add(collection);
    this.wake?.();
  }

  /**
   * Stops the loop, then publishes once more what writes of this process signalled since its last pass (a
   * request that finished during the shutdown), for up to 5 s. What is still pending after that stays in its
   * records for the other replicas' relays (or this one's next start): nothing is lost either way.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.stopObserving?.();
    this.wake?.();
    await this.loop;
    await Promise.all(this.acknowledging);
    const pending = this.collections.filter((collection) => this.dirty.has(collection.collectionName));
    if (pending.length === 0) return;
    await withTimeout(this.drain(pending), FLUSH_TIMEOUT_MS, () => undefined).catch((error: unknown) =>
      this.options.logger.warn({ err: error }, 'outbox relay could not flush at shutdown; the events stay pending'),
    );
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (!this.sweep) await new Promise((resolve) => setTimeout(resolve, this.options.coalesceMs ?? 5));
      const collections = this.sweep ? this.collections : this.collections.filter((c) => this.dirty.has(c.collectionName));
      this.sweep = false;
      this.dirty = new Set();
      try {
        // A collection whose batch was full is read again at once; one that had anything to publish is read
        // again once acknowledged (acknowledgeLater): a writer of another replica may have appended to a record
        // while this relay held its lease, and that writer's relay found it leased and will not look again.
        for (const name of await this.publishPass(collections)) this.dirty.add(name);
      } catch (error) {
        this.options.logger.error({ err: error }, 'outbox relay pass failed; retrying');
        for (const collection of collections) this.dirty.add(collection.collectionName);
        await this.sleep(1_000);
        continue;
      }
      if (this.dirty.size > 0 || this.stopped) continue;
      const idle = await this.idleFor().catch(() => 1_000);
      if (this.dirty.size > 0 || this.stopped) continue;
      await this.sleep(idle);
      if (this.dirty.size === 0) this.sweep = true;
    }
  }

  /** Publishes what is pending in `collections` (one batch each) and waits for the acknowledgements. */
  async drain(collections: Collection<Document>[] = this.collections): Promise<void> {
    await this.publishPass(collections);
    await Promise.all(this.acknowledging);
  }

  /**
   * One pass: claims, publishes, and starts acknowledging without waiting for it, so an event written meanwhile
   * waits for one round trip less. The records stay leased until acknowledged, so no pass claims them again.
   * Returns the names of the collections whose batch was full (more may be pending).
   */
  private async publishPass(collections: Collection<Document>[]): Promise<string[]> {
    const batchSize = this.options.batchSize ?? 100;
    const claimed = await Promise.all(
      collections.map(async (collection) => ({ collection, records: await this.claim(collection, batchSize) })),
    );
    const entries = claimed.flatMap(({ records }) => records.flatMap((record) => record.entries));
    if (entries.length > 0) {
      await this.options.bus.publish(
        this.options.topic,
        entries.map((entry) => ({
          key: entry.org_id,
          value: JSON.stringify(toDomainEvent(entry)),
          headers: { 'event-type': entry.type, 'event-id': entry.id, ...entry.trace },
        })),
      );
    }
    countPublished(entries.length);
    if (entries.length > 0) this.acknowledgeLater(claimed);
    return claimed.filter(({ records }) => records.length >= batchSize).map(({ collection }) => collection.collectionName);
  }

  private acknowledgeLater(claimed: Array<{ collection: Collection<Document>; records: ClaimedRecord[] }>): void {
    const done = Promise.all(claimed.map(({ collection, records }) => this.acknowledge(collection, records))).then(
      () => {
        for (const { collection, records } of claimed) if (records.length > 0) this.nudge(collection.collectionName);
      },
      // Published but not acknowledged: the leases expire and the entries are published again (at least once).
      (error: unknown) => this.options.logger.error({ err: error }, 'outbox relay could not acknowledge published events'),
    );
    this.acknowledging.add(done);
    void done.finally(() => this.acknowledging.delete(done));
  }

  /**
   * Until the earliest lease of a pending record expires (its holder may have died), at most idleCheckMs. Looked
   * up at most once a second: under a stream of writes the relay goes idle between bursts many times a second.
   */
  private async idleFor(): Promise<number> {
    const idle = this.options.idleCheckMs ?? 30_000;
    const now = Date.now();
    if (now - this.leasesReadAt < 1_000) return Math.max(10, Math.min(idle, this.earliestLease - now + 10));
    this.leasesReadAt = now;
    const leases = await Promise.all(
      this.collections.map((collection) =>
        collection.findOne(
          { ...PENDING, _outbox_lease_until: { $ne: null } },
          { projection: { _outbox_lease_until: 1 }, sort: { _outbox_lease_until: 1 } },
        ),
      ),
    );
    this.earliestLease = Math.min(...leases.map((doc) => (doc?._outbox_lease_until as Date | undefined)?.getTime() ?? Infinity));
    return Math.max(10, Math.min(idle, this.earliestLease - Date.now() + 10));
  }

  /**
   * Leases up to `limit` pending records with one conditional update: of several replicas that saw the same
   * records, each record goes to exactly one (the store applies the condition per document, atomically). The
   * entries are read with the candidates: when every candidate was leased here, they are the ones to publish (an
   * entry appended after the read stays pending, since the acknowledgement removes only published ids); when
   * another replica won some, the records leased here are read again.
   */
  private async claim(collection: Collection<Document>, limit: number): Promise<ClaimedRecord[]> {
    const now = new Date();
    const candidates = await collection
      .find({ ...PENDING, ...leaseFree(now) }, { projection: { _outbox: 1 } })
      .limit(limit)
      .toArray();
    if (candidates.length === 0) return [];
    const ids = candidates.map((candidate) => candidate._id);
    const leaseUntil = new Date(now.getTime() + (this.options.leaseMs ?? 30_000));
    const { modifiedCount } = await collection.updateMany(
      { _id: { $in: ids }, ...PENDING, ...leaseFree(now) },
      { $set: { _outbox_lease_until: leaseUntil, _outbox_lease_owner: this.owner } },
    );
    const leased =
      modifiedCount === candidates.length
        ? candidates
        : await collection.find({ _id: { $in: ids }, _outbox_lease_owner: this.owner }, { projection: { _outbox: 1 } }).toArray();
    return leased.map((record) => ({ id: record._id, entries: (record._outbox as OutboxEntry[] | undefined) ?? [] }));
  }

  /**
   * Removes the published entries and releases the leases of a batch in one update, each document atomically.
   * Entries a writer appended meanwhile stay, and keep their record pending.
   */
  private async acknowledge(collection: Collection<Document>, records: ClaimedRecord[]): Promise<void> {
    if (records.length === 0) return;
    const published = records.flatMap((record) => record.entries.map((entry) => entry.id));
    await collection.updateMany({ _id: { $in: records.map((record) => record.id) }, _outbox_lease_owner: this.owner }, [
      { $set: { _outbox: { $filter: { input: '$_outbox', cond: { $not: [{ $in: ['$$this.id', published] }] } } } } },
      { $set: { _outbox_pending: { $gt: [{ $size: '$_outbox' }, 0] } } },
      { $unset: ['_outbox_lease_until', '_outbox_lease_owner'] },
    ]);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = () => {
        if (this.timer) clearTimeout(this.timer);
        this.wake = undefined;
        resolve();
      };
      this.timer = setTimeout(() => this.wake?.(), ms);
    });
  }
}
