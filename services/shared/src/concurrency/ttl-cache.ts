/**
 * A small in-process cache of computed values with a time to live. Used for `meta.total`, which the spec
 * allows to be approximate (§8): a count a few seconds old is as useful to a client, and a list then costs
 * one page query instead of a page query and a count.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; expiresAt: number }>();

  /**
   * @param ttlMs how long a value stays in use, from when its computation began; or a function of the value (the
   *   value is shared by every caller while it is being computed, then kept that long).
   */
  constructor(
    private readonly ttlMs: number | ((value: V) => number),
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, compute: () => PromiseLike<V>, now = Date.now()): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    // Promise.resolve subscribes once: a thenable such as a mongoose query runs exactly once.
    const value = Promise.resolve(compute());
    const { ttlMs } = this;
    const entry = { value, expiresAt: typeof ttlMs === 'number' ? now + ttlMs : Infinity };
    this.entries.set(key, entry);
    value.then(
      (computed) => {
        if (typeof ttlMs !== 'number') entry.expiresAt = now + ttlMs(computed);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return value;
  }

  /** Forgets a key after a write that changes the count, so the writer's next page sees its own change. */
  invalidate(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets every key that starts with `prefix` (e.g. all the counts of one organization). */
  invalidatePrefix(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}
