import type { ClaimedRecord } from './outbox-claims';
import type { WrittenRecord } from './outbox-signal';

/** What one pass of the relay does, by collection name. */
export interface PassWork {
  /** Records leased to this relay already, with their entries (inserted with a lease, or claimed and not published). */
  leased: Map<string, ClaimedRecord[]>;
  /** Records to lease by id (updated with events by this process, or appended to while leased here). */
  ids: Map<string, unknown[]>;
  /** Collections whose unleased pending records are read. */
  sweep: Set<string>;
}

/**
 * The relay's to-do list between passes: the records this process's writes handed over, and the collections to
 * sweep. Taken whole by a pass (ids at most `limit` per collection), and given back if the pass could not claim.
 */
export class OutboxWork {
  private leased = new Map<string, ClaimedRecord[]>();
  /** By collection, then by the id's string form (one claim per record, whatever the number of writes). */
  private ids = new Map<string, Map<string, unknown>>();
  private sweep = new Set<string>();

  add({ collection, id, leased }: WrittenRecord): void {
    if (leased) this.holdLeased(collection, [{ id: id as ClaimedRecord['id'], entries: leased }]);
    else this.idsOf(collection).set(String(id), id);
  }

  holdLeased(collection: string, records: ClaimedRecord[]): void {
    if (records.length === 0) return;
    const held = this.leased.get(collection);
    if (held) held.push(...records);
    else this.leased.set(collection, [...records]);
  }

  sweepAgain(collection: string): void {
    this.sweep.add(collection);
  }

  isEmpty(): boolean {
    return this.leased.size === 0 && this.ids.size === 0 && this.sweep.size === 0;
  }

  /** Everything to do now, plus a sweep of `sweep`; at most `limit` ids per collection (the rest stays). */
  take(sweep: string[], limit: number): PassWork {
    const work: PassWork = { leased: this.leased, ids: new Map(), sweep: new Set([...this.sweep, ...sweep]) };
    this.leased = new Map();
    this.sweep = new Set();
    for (const [collection, ids] of this.ids) {
      const taken = [...ids.keys()].slice(0, limit);
      work.ids.set(
        collection,
        taken.map((key) => ids.get(key)),
      );
      for (const key of taken) ids.delete(key);
      if (ids.size === 0) this.ids.delete(collection);
    }
    return work;
  }

  /** Gives one collection's part of a pass back (its claim failed). */
  putBack(collection: string, work: PassWork): void {
    this.holdLeased(collection, work.leased.get(collection) ?? []);
    for (const id of work.ids.get(collection) ?? []) this.idsOf(collection).set(String(id), id);
    if (work.sweep.has(collection)) this.sweep.add(collection);
  }

  private idsOf(collection: string): Map<string, unknown> {
    let ids = this.ids.get(collection);
    if (!ids) this.ids.set(collection, (ids = new Map()));
    return ids;
  }
}
