import type { Collection, Document } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { withTimeout } from '../concurrency/with-timeout';
import type { EventBus } from '../kafka/event-bus';
import type { Logger } from '../logger';
import { toDomainEvent } from './domain-event';
import { OutboxClaims, type ClaimedRecord } from './outbox-claims';
import { countPublished, observePendingEvents } from './outbox-metrics';
import type { OutboxLessee, OutboxSignal, WrittenRecord } from './outbox-signal';
import { OutboxWork, type PassWork } from './outbox-work';

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
   * The longest time between two sweeps of every collection. Writes of this process wake the relay at once and
   * expiring leases at their due time; the sweep catches records whose writer died between its write and the
   * wake, or that a process without a relay wrote.
   */
  idleCheckMs?: number;
  /**
   * How long published records wait for their acknowledgement, so that one update acknowledges the records of
   * several passes (each acknowledgement costs two round trips to the store); a full batch is acknowledged at once.
   */
  ackDelayMs?: number;
}

type Claimed = Array<{ collection: Collection<Document>; records: ClaimedRecord[] }>;

const FLUSH_TIMEOUT_MS = 5_000;

/**
 * Publishes embedded outbox entries to Kafka. Records are leased before publishing so that replicas do not
 * publish them together; entries are removed only after the broker acknowledged them (acks: all). A crash after
 * the publish and before the removal publishes again: consumers deduplicate by event id.
 *
 * The writes of this process hand it their records (OutboxSignal): a record inserted with events is leased to
 * this relay by the insert itself, and its entries come with the signal, so they go to Kafka with no round trip
 * to the store; a record updated with events is leased the same way when no relay held it (the update answers
 * every pending entry of the record, in order), and otherwise by id with one conditional update that answers its
 * entries, once the relay that held it has acknowledged (it finds the record still pending). No relay reads another replica's fresh records, so replicas do not race for them. The sweep (every
 * collection's unleased pending records) runs at start, when a lease seen is due to expire (its holder may have
 * died), and otherwise every `idleCheckMs`. Acknowledgements run in the background, gathered over `ackDelayMs`
 * (20 ms) so that under a stream of writes one update acknowledges several passes; the records stay leased until
 * then, and those a writer appended to meanwhile are claimed again.
 */
export class OutboxRelay implements OutboxLessee {
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly claims: OutboxClaims;
  private readonly work = new OutboxWork();
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private nextSweepAt = 0;
  /** The earliest lease of a pending record seen, and when it was read (see idleFor). */
  private earliestLease = Infinity;
  private leasesReadAt = 0;
  /** Acknowledgements in progress: the next pass does not wait for them (their records stay leased meanwhile). */
  private readonly acknowledging = new Set<Promise<void>>();
  /** Published records waiting for their acknowledgement (ackDelayMs), per collection; still leased to this relay. */
  private readonly unacknowledged = new Map<Collection<Document>, ClaimedRecord[]>();
  /** The records this relay leased (at a write, or claimed) and has not acknowledged yet: `<collection>:<id>`. */
  private readonly held = new Set<string>();
  private ackTimer: NodeJS.Timeout | undefined;
  private stopObserving: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;
  private collections: Collection<Document>[] = [];

  constructor(private readonly options: OutboxRelayOptions) {
    this.leaseMs = options.leaseMs ?? 30_000;
    this.batchSize = options.batchSize ?? 100;
    this.claims = new OutboxClaims(this.owner, this.leaseMs);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.collections = this.options.outbox.collections();
    this.unsubscribe = this.options.outbox.subscribe(this);
    this.stopObserving = observePendingEvents(this.collections);
    this.nextSweepAt = 0;
    this.loop = this.run();
  }

  /** A write of this process gave events to a record (after its commit): they leave at once. */
  written(record: WrittenRecord): void {
    if (record.leased) this.held.add(heldKey(record.collection, record.id));
    // Updated while this relay holds it: its acknowledgement finds it still pending and claims it then (a claim
    // before could not succeed: the lease is this relay's own).
    else if (this.holds(record.collection, record.id)) return;
    this.work.add(record);
    this.wake?.();
  }

  holds(collection: string, id: unknown): boolean {
    return this.held.has(heldKey(collection, id));
  }

  /**
   * Stops the loop, then publishes once more what writes of this process handed it since its last pass (a
   * request that finished during the shutdown), for up to 5 s. What is still pending after that stays in its
   * records for the other replicas' relays (or this one's next start) once its lease expires: nothing is lost.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.stopObserving?.();
    this.wake?.();
    await this.loop;
    this.acknowledgeNow();
    await Promise.all(this.acknowledging);
    if (this.work.isEmpty()) return;
    await withTimeout(this.drain(), FLUSH_TIMEOUT_MS, () => undefined).catch((error: unknown) =>
      this.options.logger.warn({ err: error }, 'outbox relay could not flush at shutdown; the events stay pending'),
    );
  }

  /** Publishes what this process's writes handed over and waits for the acknowledgements. */
  private async drain(): Promise<void> {
    await this.publishPass(this.work.take([], this.batchSize));
    this.acknowledgeNow();
    await Promise.all(this.acknowledging);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const sweep = Date.now() >= this.nextSweepAt;
      if (!sweep) await new Promise((resolve) => setTimeout(resolve, this.options.coalesceMs ?? 5));
      if (sweep) {
        this.nextSweepAt = Date.now() + (this.options.idleCheckMs ?? 30_000);
        // The leases the sweep took over, or found gone, change the next due time: read them again after it.
        this.leasesReadAt = 0;
      }
      const work = this.work.take(sweep ? this.collections.map((collection) => collection.collectionName) : [], this.batchSize);
      try {
        await this.publishPass(work);
      } catch (error) {
        this.options.logger.error({ err: error }, 'outbox relay pass failed; retrying');
        await this.sleep(1_000);
        continue;
      }
      if (!this.work.isEmpty() || this.stopped) continue;
      const idle = await this.idleFor().catch(() => 1_000);
      this.nextSweepAt = Math.min(this.nextSweepAt, Date.now() + idle);
      if (!this.work.isEmpty() || this.stopped) continue;
      await this.sleep(this.nextSweepAt - Date.now());
    }
  }

  /**
   * One pass: claims, publishes, and starts acknowledging without waiting for it, so an event written meanwhile
   * waits for one round trip less. Records claimed but not published stay this relay's work (they are leased to
   * it), and so does what could not be claimed.
   */
  private async publishPass(work: PassWork): Promise<void> {
    const claimed = await this.claimAll(work);
    const entries = claimed.flatMap(({ records }) => records.flatMap((record) => record.entries));
    if (entries.length === 0) return;
    try {
      await this.options.bus.publish(
        this.options.topic,
        entries.map((entry) => ({
          key: entry.org_id,
          value: JSON.stringify(toDomainEvent(entry)),
          headers: { 'event-type': entry.type, 'event-id': entry.id, ...entry.trace },
        })),
      );
    } catch (error) {
      for (const { collection, records } of claimed) this.work.holdLeased(collection.collectionName, records);
      throw error;
    }
    countPublished(entries.length);
    this.acknowledgeLater(claimed);
  }

  /** Each collection's records leased at the write, those named by writes, and (sweep) unleased pending ones. */
  private async claimAll(work: PassWork): Promise<Claimed> {
    const batchSize = this.batchSize;
    const outcomes = await Promise.allSettled(
      this.collections.map(async (collection) => {
        const name = collection.collectionName;
        const claimed = await this.claims.byIds(collection, work.ids.get(name) ?? []);
        if (work.sweep.has(name)) {
          const swept = await this.claims.pending(collection, batchSize);
          // A full batch: more may be pending.
          if (swept.length >= batchSize) this.work.sweepAgain(name);
          claimed.push(...swept);
        }
        for (const record of claimed) this.held.add(heldKey(name, record.id));
        const records = [...(work.leased.get(name) ?? []), ...claimed];
        return { collection, records };
      }),
    );
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (!failed) return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<Claimed[number]>).value);
    outcomes.forEach((outcome, index) => {
      const name = this.collections[index]!.collectionName;
      if (outcome.status === 'fulfilled') this.work.holdLeased(name, outcome.value.records);
      else this.work.putBack(name, work);
    });
    throw failed.reason;
  }

  /** Queues the published records for acknowledgement: after ackDelayMs, or at once when a batch is full. */
  private acknowledgeLater(claimed: Claimed): void {
    let queued = 0;
    for (const { collection, records } of claimed) {
      if (records.length === 0) continue;
      const list = this.unacknowledged.get(collection) ?? [];
      list.push(...records);
      this.unacknowledged.set(collection, list);
    }
    for (const list of this.unacknowledged.values()) queued += list.length;
    if (queued >= this.batchSize) this.acknowledgeNow();
    else this.ackTimer ??= setTimeout(() => this.acknowledgeNow(), this.options.ackDelayMs ?? 20);
  }

  /** Acknowledges what is queued, in the background (one update and one read per collection). */
  private acknowledgeNow(): void {
    clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    if (this.unacknowledged.size === 0) return;
    const batches = [...this.unacknowledged];
    this.unacknowledged.clear();
    const done = Promise.all(
      batches.map(async ([collection, records]) => {
        try {
          await this.claims.acknowledge(collection, records);
        } finally {
          // Released, or left to expire (a failed acknowledgement): either way no longer this relay's to write around.
          for (const record of records) this.held.delete(heldKey(collection.collectionName, record.id));
        }
        const again = await this.claims.stillPending(collection, records);
        if (again.length === 0) return;
        for (const id of again) this.work.add({ collection: collection.collectionName, id });
        this.wake?.();
      }),
    ).then(
      () => undefined,
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
    if (now - this.leasesReadAt >= 1_000) {
      this.leasesReadAt = now;
      const leases = await Promise.all(this.collections.map((collection) => this.claims.earliestLease(collection)));
      this.earliestLease = Math.min(...leases);
    }
    return Math.max(10, Math.min(idle, this.earliestLease - Date.now() + 10));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = () => {
        if (this.timer) clearTimeout(this.timer);
        this.wake = undefined;
        resolve();
      };
      this.timer = setTimeout(() => this.wake?.(), Math.max(0, ms));
    });
  }
}

const heldKey = (collection: string, id: unknown): string => `${collection}:${String(id)}`;
