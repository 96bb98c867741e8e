interface Lane<T> {
  items: T[];
}

interface Tenant<T> {
  lanes: Map<string, Lane<T>>;
  /** Lanes with items, in turn order: the next to serve is first. */
  turn: string[];
}

/**
 * Items queued per lane (a subscription) within tenants (organizations), taken in turn: round-robin over the
 * tenants that have work, and within a tenant over its lanes. `next` skips whatever the caller cannot start now
 * (a lane or a tenant at its concurrency cap), so a lane that is slow to drain never holds back the others.
 */
export class FairQueue<T> {
  private readonly tenants = new Map<string, Tenant<T>>();
  private turn: string[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  laneSize(tenant: string, lane: string): number {
    return this.tenants.get(tenant)?.lanes.get(lane)?.items.length ?? 0;
  }

  push(tenant: string, lane: string, item: T): void {
    let entry = this.tenants.get(tenant);
    if (!entry) {
      entry = { lanes: new Map(), turn: [] };
      this.tenants.set(tenant, entry);
      this.turn.push(tenant);
    }
    let queue = entry.lanes.get(lane);
    if (!queue) {
      queue = { items: [] };
      entry.lanes.set(lane, queue);
      entry.turn.push(lane);
    }
    queue.items.push(item);
    this.count++;
  }

  /**
   * The first item of the next lane in turn that `canStart(tenant, lane)` allows, or null. The tenant and the lane
   * served go to the back of their turns.
   */
  next(canStart: (tenant: string, lane: string) => boolean): { tenant: string; lane: string; item: T } | null {
    for (let t = 0; t < this.turn.length; t++) {
      const tenant = this.turn[t] as string;
      const entry = this.tenants.get(tenant) as Tenant<T>;
      for (let l = 0; l < entry.turn.length; l++) {
        const lane = entry.turn[l] as string;
        if (!canStart(tenant, lane)) continue;
        const queue = entry.lanes.get(lane) as Lane<T>;
        const item = queue.items.shift() as T;
        this.count--;
        entry.turn.splice(l, 1);
        if (queue.items.length > 0) entry.turn.push(lane);
        else entry.lanes.delete(lane);
        this.turn.splice(t, 1);
        if (entry.turn.length > 0) this.turn.push(tenant);
        else this.tenants.delete(tenant);
        return { tenant, lane, item };
      }
    }
    return null;
  }

  /** Removes and returns every item of a lane (its subscription was paused or deleted). */
  drain(tenant: string, lane: string): T[] {
    const entry = this.tenants.get(tenant);
    const queue = entry?.lanes.get(lane);
    if (!entry || !queue) return [];
    entry.lanes.delete(lane);
    entry.turn = entry.turn.filter((name) => name !== lane);
    if (entry.turn.length === 0) {
      this.tenants.delete(tenant);
      this.turn = this.turn.filter((name) => name !== tenant);
    }
    this.count -= queue.items.length;
    return queue.items;
  }

  /** Lanes holding at least `size` items. */
  *fullLanes(size: number): Iterable<string> {
    for (const entry of this.tenants.values()) for (const [lane, queue] of entry.lanes) if (queue.items.length >= size) yield lane;
  }

  /** Every queued item. */
  *items(): Iterable<T> {
    for (const entry of this.tenants.values()) for (const queue of entry.lanes.values()) yield* queue.items;
  }
}
