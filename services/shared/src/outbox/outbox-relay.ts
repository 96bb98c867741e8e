import type { Collection, Document } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { EventBus } from '../kafka/event-bus';
import type { Logger } from '../logger';
import { toDomainEvent, type OutboxEntry } from './domain-event';

export interface OutboxRelayOptions {
  collections: Collection<Document>[];
  bus: EventBus;
  topic: string;
  logger: Logger;
  /** Records leased per collection and pass. */
  batchSize?: number;
  /** How long a lease keeps other replicas off a record being published. */
  leaseMs?: number;
  /**
   * The longest sleep with nothing to publish. Writers of this process wake the relay at once and expiring
   * leases at their due time; this only catches records whose writer died between its write and its nudge.
   */
  idleCheckMs?: number;
}

interface ClaimedRecord {
  collection: Collection<Document>;
  id: Document['_id'];
  entries: OutboxEntry[];
}

const PENDING = { _outbox_pending: true } as const;
const leaseFree = (now: Date) => ({ $or: [{ _outbox_lease_until: null }, { _outbox_lease_until: { $lt: now } }] });

/**
 * Publishes embedded outbox entries to Kafka. A record is leased before publishing so that replicas do not
 * publish it together; entries are removed only after the broker acknowledged them (acks: all). A crash after
 * the publish and before the removal publishes again: consumers deduplicate by event id.
 *
 * It does no work when idle: every query is on the `_outbox_pending` index, a pass runs when a write of this
 * process nudges it, when a lease it saw is due to expire, and otherwise once per `idleCheckMs`.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  /** A nudge arrived during a pass: run another before sleeping. */
  private nudged = false;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(private readonly options: OutboxRelayOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /** Wakes the relay right after a write, so its events leave within milliseconds. */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.nudged = false;
      let published = 0;
      try {
        published = await this.drainOnce();
      } catch (error) {
        this.options.logger.error({ err: error }, 'outbox relay pass failed; retrying');
        await this.sleep(1_000);
        continue;
      }
      if (published > 0 || this.nudged || this.stopped) continue;
      const idle = await this.idleFor().catch(() => 1_000);
      if (!this.nudged && !this.stopped) await this.sleep(idle);
    }
  }

  /** One pass over every collection; returns how many events were published. */
  async drainOnce(): Promise<number> {
    const claimed = (await Promise.all(this.options.collections.map((collection) => this.claim(collection)))).flat();
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
  }

  /** Until the earliest lease of a pending record expires (its holder may have died), at most idleCheckMs. */
  private async idleFor(): Promise<number> {
    const idle = this.options.idleCheckMs ?? 30_000;
    const leases = await Promise.all(
      this.options.collections.map((collection) =>
        collection.findOne(
          { ...PENDING, _outbox_lease_until: { $ne: null } },
          { projection: { _outbox_lease_until: 1 }, sort: { _outbox_lease_until: 1 } },
        ),
      ),
    );
    const due = leases.map((doc) => (doc?._outbox_lease_until as Date | undefined)?.getTime() ?? Infinity);
    return Math.max(10, Math.min(idle, Math.min(...due) - Date.now() + 10));
  }

  private async claim(collection: Collection<Document>): Promise<ClaimedRecord[]> {
    const now = new Date();
    const candidates = await collection
      .find({ ...PENDING, ...leaseFree(now) }, { projection: { _id: 1 } })
      .limit(this.options.batchSize ?? 100)
      .toArray();
    const leaseUntil = new Date(now.getTime() + (this.options.leaseMs ?? 30_000));
    // Each lease is a conditional update: of several replicas that saw the same record, exactly one gets it.
    const records = await Promise.all(
      candidates.map((candidate) =>
        collection.findOneAndUpdate(
          { _id: candidate._id, ...PENDING, ...leaseFree(now) },
          { $set: { _outbox_lease_until: leaseUntil, _outbox_lease_owner: this.owner } },
          { returnDocument: 'after', projection: { _outbox: 1 } },
        ),
      ),
    );
    return records
      .filter((record) => record !== null)
      .map((record) => ({ collection, id: record._id, entries: (record._outbox as OutboxEntry[] | undefined) ?? [] }));
  }

  /**
   * Removes the published entries and releases the lease in one atomic update. Entries a writer appended
   * meanwhile stay, and keep the record pending.
   */
  private async acknowledge(record: ClaimedRecord): Promise<void> {
    const published = record.entries.map((entry) => entry.id);
    await record.collection.updateOne({ _id: record.id, _outbox_lease_owner: this.owner }, [
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
