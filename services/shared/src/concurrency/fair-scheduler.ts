/** Why a waiting call was not started. */
export class NotStarted extends Error {
  constructor(readonly reason: 'deadline' | 'cancelled') {
    super(reason === 'deadline' ? 'the deadline passed while the call waited for a place' : 'the caller went away while the call waited');
  }
}

interface Waiter {
  grant: () => void;
  refuse: (error: NotStarted) => void;
}

/**
 * A bounded number of calls in service in this process, shared fairly among lanes (organizations): while every
 * place is taken, the calls that wait are queued per lane, and each freed place goes to the next lane in turn
 * (round robin), not to the longest queue. One organization alone may use every place; when another arrives, its
 * call starts at the next free place instead of behind everything the first has queued. A waiter whose deadline
 * passes, or whose caller goes away, is dropped without being started. `limit` 0: no bound, nothing waits.
 */
export class FairScheduler {
  private active = 0;
  /** Lanes with waiters, in turn order (a Map iterates in insertion order; a served lane moves to the end). */
  private readonly lanes = new Map<string, Waiter[]>();

  constructor(private readonly limit: number) {}

  /** Waits for a place in `lane`'s turn; resolves the function that gives it back (call it exactly once). */
  acquire(lane: string, deadline?: number, cancelled?: AbortSignal): Promise<() => void> {
    if (this.limit <= 0) return Promise.resolve(() => undefined);
    if (this.active < this.limit && this.lanes.size === 0) {
      this.active += 1;
      return Promise.resolve(this.releaser());
    }
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
          resolve(this.releaser());
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

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.handOver();
    };
  }

  /** Gives the freed place to the first waiter of the lane whose turn it is, which then goes to the back. */
  private handOver(): void {
    const [lane, queue] = this.lanes.entries().next().value ?? [];
    const next = queue?.[0];
    if (lane === undefined || !queue || !next) {
      this.active -= 1;
      return;
    }
    this.lanes.delete(lane);
    if (queue.length > 1) this.lanes.set(lane, queue);
    next.grant();
  }
}
