/** Why a waiting call was not started. */
export class NotStarted extends Error {
  constructor(readonly reason: 'deadline' | 'cancelled') {
    super(reason === 'deadline' ? 'the deadline passed while the call waited for a place' : 'the caller went away while the call waited');
  }
}

/** The lane of calls on behalf of no organization. */
const NO_ORGANIZATION = '';

interface Waiter {
  grant: () => void;
  refuse: (error: NotStarted) => void;
}

/**
 * A bounded number of calls in service in this process, shared fairly among lanes (organizations): while every
 * place is taken, the calls that wait are queued per lane, and each freed place goes to the next lane in turn
 * (round robin), not to the longest queue. While another organization is active (holds a place, waits for one, or
 * was given one within the last `shareWindowMs`; calls of no organization do not count), a lane holds at most
 * `perLane` places (default: every place), even when the others are free: one organization's expensive calls then
 * never fill the process — nor the database behind it — and another organization's call starts at once, without
 * waiting for one of them to end. A lane alone may use every place. A waiter whose deadline passes, or whose caller
 * goes away, is dropped without being started. `limit` 0: no bound, nothing waits.
 */
export class FairScheduler {
  private active = 0;
  /** Places held per lane (lanes holding none are absent). */
  private readonly held = new Map<string, number>();
  /** When each lane was last given a place (lanes not given one within the window are dropped as they are met). */
  private readonly lastServed = new Map<string, number>();
  /** Lanes with waiters, in turn order (a Map iterates in insertion order; a served lane moves to the end). */
  private readonly lanes = new Map<string, Waiter[]>();
  private readonly perLane: number;

  constructor(
    private readonly limit: number,
    perLane = 0,
    private readonly shareWindowMs = 1_000,
  ) {
    this.perLane = perLane > 0 ? Math.min(perLane, limit) : limit;
  }

  /** Waits for a place in `lane`'s turn; resolves the function that gives it back (call it exactly once). */
  acquire(lane: string, deadline?: number, cancelled?: AbortSignal): Promise<() => void> {
    if (this.limit <= 0) return Promise.resolve(() => undefined);
    // A lane that may take a place does not wait while one is free (dispatch), so one that may, with no queue of its
    // own, starts now.
    if (this.active < this.limit && this.mayTake(lane) && !this.lanes.has(lane)) return Promise.resolve(this.take(lane));
    return new Promise((resolve, reject) => {
      const queue = this.lanes.get(lane) ?? [];
      const leave = () => {
        if (timer) clearTimeout(timer);
        cancelled?.removeEventListener('abort', onCancelled);
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        if (queue.length === 0 && this.lanes.get(lane) === queue) this.lanes.delete(lane);
      };
      const waiter: Waiter = {
        grant: () => {
          leave();
          resolve(this.take(lane));
        },
        refuse: (error) => {
          leave();
          reject(error);
        },
      };
      const timer = deadline === undefined ? undefined : setTimeout(() => waiter.refuse(new NotStarted('deadline')), deadline - Date.now());
      const onCancelled = () => waiter.refuse(new NotStarted('cancelled'));
      cancelled?.addEventListener('abort', onCancelled, { once: true });
      queue.push(waiter);
      this.lanes.set(lane, queue);
    });
  }

  /** Calls in service now. */
  get inService(): number {
    return this.active;
  }

  /** Calls of `lane` in service now. */
  heldBy(lane: string): number {
    return this.held.get(lane) ?? 0;
  }

  private mayTake(lane: string): boolean {
    return this.heldBy(lane) < this.perLane || !this.othersActive(lane);
  }

  /**
   * Whether an organization other than `lane` holds a place, waits for one, or was given one within the window. Calls
   * on behalf of no organization (lane '': key lookups, which the gateway repeats in the background every few seconds)
   * do not count: they would hold a lone organization to its share for nothing.
   */
  private othersActive(lane: string): boolean {
    const other = (name: string) => name !== lane && name !== NO_ORGANIZATION;
    for (const name of this.held.keys()) if (other(name)) return true;
    for (const name of this.lanes.keys()) if (other(name)) return true;
    const since = Date.now() - this.shareWindowMs;
    for (const [name, at] of this.lastServed) {
      if (at < since) this.lastServed.delete(name);
      else if (other(name)) return true;
    }
    return false;
  }

  /** Takes a place for `lane`; returns the function that gives it back (once; later calls do nothing). */
  private take(lane: string): () => void {
    this.active += 1;
    this.held.set(lane, this.heldBy(lane) + 1);
    this.lastServed.delete(lane);
    this.lastServed.set(lane, Date.now());
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      const left = this.heldBy(lane) - 1;
      if (left > 0) this.held.set(lane, left);
      else this.held.delete(lane);
      this.dispatch();
    };
  }

  /** Gives free places to the first waiter of each lane in turn that is below its share; a served lane goes to the back. */
  private dispatch(): void {
    while (this.active < this.limit) {
      const lane = this.nextLane();
      const queue = lane === undefined ? undefined : this.lanes.get(lane);
      if (lane === undefined || !queue) return;
      this.lanes.delete(lane);
      if (queue.length > 1) this.lanes.set(lane, queue);
      queue[0]?.grant();
    }
  }

  private nextLane(): string | undefined {
    for (const lane of this.lanes.keys()) if (this.mayTake(lane)) return lane;
    return undefined;
  }
}
