import type { Collection, Document } from 'mongodb';
import { hostname } from 'node:os';
import type { KeyedLocks } from '../concurrency/keyed-locks';
import type { EventBus } from '../kafka/event-bus';
import type { Logger } from '../logger';
import { toDomainEvent, type OutboxEntry } from './domain-event';

export interface OutboxRelayOptions {
  collections: Collection<Document>[];
  bus: EventBus;
  topic: string;
  logger: Logger;
  /** How often, at most, records written by this process are looked for when no write woke the relay. */
  pollIntervalMs?: number;
  /**
   * How often every collection is scanned for pending records this process was not told about (written by
   * another replica, or left by a process that died). Scans are costly on FerretDB (no index use), so the
   * records this process writes are published from hints instead.
   */
  scanIntervalMs?: number;
  batchSize?: number;
  leaseMs?: number;
  /**
   * The writers' locks, for writers that still serialize in-process. Without them (services whose writers are
   * all conditional single-document updates) the relay's own writes are conditional too and need no lock.
   */
  locks?: KeyedLocks;
}

interface ClaimedRecord {
  collection: Collection<Document>;
  id: Document['_id'];
  entries: OutboxEntry[];
}

/**
 * Publishes embedded outbox entries to Kafka. A record is leased before publishing so that replicas do not
 * publish it together; entries are removed only after the broker acknowledged them (acks: all). A crash after
 * the publish and before the removal publishes again: consumers deduplicate by event id.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private wake: (() => void) | undefined;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private readonly owner = `${hostname()}:${process.pid}`;
  /** Records this process gave events to, by collection name: published without a scan. */
  private readonly hints = new Map<string, Set<string>>();
  private lastScanAt = 0;

  constructor(private readonly options: OutboxRelayOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /** Wakes the relay right after a write, so events leave within milliseconds instead of a poll interval. */
  nudge(collectionName?: string, id?: string): void {
    if (collectionName && id) {
      const ids = this.hints.get(collectionName) ?? new Set<string>();
      ids.add(id);
      this.hints.set(collectionName, ids);
    }
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge();
    if (this.timer) clearTimeout(this.timer);
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let published = 0;
      try {
        published = await this.drainOnce();
      } catch (error) {
        this.options.logger.error({ err: error }, 'outbox relay pass failed; retrying');
      }
      if (published === 0 && this.hints.size === 0 && !this.stopped) await this.sleep(this.options.pollIntervalMs ?? 250);
    }
  }

  /**
   * One pass: the hinted records, and every collection when the scan is due (or `scan` is set); returns how
   * many events were published.
   */
  async drainOnce(scan = Date.now() - this.lastScanAt >= (this.options.scanIntervalMs ?? 5_000)): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      const claimed: ClaimedRecord[] = [];
      for (const collection of this.options.collections) {
        const hinted = this.hints.get(collection.collectionName);
        this.hints.delete(collection.collectionName);
        if (scan) claimed.push(...(await this.claim(collection)));
        else if (hinted) claimed.push(...(await this.claim(collection, [...hinted])));
      }
      if (scan) this.lastScanAt = Date.now();
      if (claimed.length === 0) return 0;
      const entries = claimed.flatMap((record) => record.entries);
      await this.options.bus.publish(
        this.options.topic,
        entries.map((entry) => ({
          key: entry.org_id,
          value: JSON.stringify(toDomainEvent(entry)),
          headers: { 'event-type': entry.type, 'event-id': entry.id, ...entry.trace },
        })),
      );
      await Promise.all(claimed.map((record) => this.acknowledge(record)));
      return entries.length;
    } finally {
      this.running = false;
    }
  }

  private async claim(collection: Collection<Document>, ids?: string[]): Promise<ClaimedRecord[]> {
    const now = new Date();
    const candidates = ids
      ? ids.map((id) => ({ _id: id as Document['_id'] }))
      : await collection
          .find({ _outbox_pending: true, $or: [{ _outbox_lease_until: null }, { _outbox_lease_until: { $lt: now } }] }, { projection: { _id: 1 } })
          .limit(this.options.batchSize ?? 100)
          .toArray();
    const claimed: ClaimedRecord[] = [];
    for (const candidate of candidates) {
      // Under the record's lock like every other write: FerretDB rewrites the whole document from its own read,
      // so a lease write racing a writer's update would silently undo that update.
      const record = await this.locked(lockKey(collection.collectionName, String(candidate._id)), () =>
        collection.findOneAndUpdate(
          { _id: candidate._id, _outbox_pending: true, $or: [{ _outbox_lease_until: null }, { _outbox_lease_until: { $lt: now } }] },
          { $set: { _outbox_lease_until: new Date(now.getTime() + (this.options.leaseMs ?? 30_000)), _outbox_lease_owner: this.owner } },
          { returnDocument: 'after' },
        ),
      );
      const entries = (record?._outbox as OutboxEntry[] | undefined) ?? [];
      if (record) claimed.push({ collection, id: candidate._id as Document['_id'], entries });
    }
    return claimed;
  }

  private async acknowledge(record: ClaimedRecord): Promise<void> {
    const ids = record.entries.map((entry) => entry.id);
    await this.locked(lockKey(record.collection.collectionName, String(record.id)), () => this.removePublished(record, ids));
  }

  /**
   * Removes the published entries. Writers only append to `_outbox` and only the lease holder removes, so an
   * unchanged length proves no entry arrived since the read (a compare-and-set that real MongoDB applies
   * atomically; FerretDB relies on the lock taken by the caller). `$pull` with a condition is not used
   * because FerretDB 1.24 treats its condition as a whole-element equality.
   */
  private async removePublished(record: ClaimedRecord, ids: string[]): Promise<void> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await record.collection.findOne({ _id: record.id });
      const entries = (current?._outbox as OutboxEntry[] | undefined) ?? [];
      const remaining = entries.filter((entry) => !ids.includes(entry.id));
      const result = await record.collection.updateOne(
        { _id: record.id, _outbox: { $size: entries.length } },
        { $set: { _outbox: remaining, _outbox_pending: remaining.length > 0 }, $unset: { _outbox_lease_until: '', _outbox_lease_owner: '' } },
      );
      if (result.matchedCount === 1) return;
    }
    this.options.logger.warn({ id: record.id }, 'outbox entries stay until the next pass (the record kept changing)');
  }

  private locked<T>(key: string, task: () => Promise<T>): Promise<T> {
    return this.options.locks ? this.options.locks.run(key, task) : task();
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

/** The lock key of one document; writers of outbox-bearing documents lock the same key. */
export const lockKey = (collectionName: string, id: string): string => `${collectionName}:${id}`;
