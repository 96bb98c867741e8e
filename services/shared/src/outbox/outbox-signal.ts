import type { Collection, Document } from 'mongodb';
import type { OutboxEntry } from './domain-event';

/** A record whose write gave it events, signalled once the write is committed. */
export interface WrittenRecord {
  collection: string;
  id: unknown;
  /** The record's entries, when the write leased it to this process's relay (see OutboxSignal.leaseOnWrite). */
  leased?: OutboxEntry[];
}

/** The relay of this process, as writes see it: who they lease new records to, and for how long. */
export interface OutboxLessee {
  owner: string;
  leaseMs: number;
  written(record: WrittenRecord): void;
  /** Whether this relay holds a lease on the record (handed, claimed or published, and not yet acknowledged). */
  holds(collection: string, id: unknown): boolean;
}

/** The outbox's lease fields, as a write stores them. */
export interface OutboxLeaseFields {
  _outbox_lease_until: Date;
  _outbox_lease_owner: string;
}

/**
 * Which collections of a process carry an embedded outbox, and who must hear that events were written to one.
 * The storage kit registers a collection when a repository defines it with `outbox: true`, and calls `written`
 * after every write that gave events to one of its records (after the commit, inside a transaction), so no writer
 * can forget to wake the relay; the relay subscribes when it starts.
 */
export class OutboxSignal {
  private readonly registered = new Map<string, Collection<Document>>();
  private lessee: OutboxLessee | undefined;

  register(collection: Collection<Document>): void {
    this.registered.set(collection.collectionName, collection);
  }

  /** The collections whose documents carry an outbox, in the order they were defined. */
  collections(): Collection<Document>[] {
    return [...this.registered.values()];
  }

  written(record: WrittenRecord): void {
    this.lessee?.written(record);
  }

  /**
   * The lease a write gives the record it inserts with events, when a relay runs in this process: the record is
   * then this relay's from its commit on (no other replica's relay reads it), and the relay publishes the entries
   * it is handed without reading them back. Undefined without a relay (a command-line tool): the record waits
   * unleased for the relays of the services.
   */
  leaseOnWrite(now = Date.now()): OutboxLeaseFields | undefined {
    const lessee = this.lessee;
    return lessee && { _outbox_lease_until: new Date(now + lessee.leaseMs), _outbox_lease_owner: lessee.owner };
  }

  /**
   * The lease an update with events tries to give its record: none when no relay runs here, or when this process's
   * relay holds the record already (its lease is in the way until it acknowledges; it then finds the record still
   * pending and leases it again by id).
   */
  leaseOnUpdate(collection: string, id: unknown): OutboxLeaseFields | undefined {
    return this.lessee?.holds(collection, id) ? undefined : this.leaseOnWrite();
  }

  /** The relay of this process starts hearing writes; returns the function that stops it. One relay per process. */
  subscribe(lessee: OutboxLessee): () => void {
    if (this.lessee) throw new Error('an outbox relay already runs for this storage');
    this.lessee = lessee;
    return () => {
      if (this.lessee === lessee) this.lessee = undefined;
    };
  }
}
