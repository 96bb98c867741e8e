import { outsideRequest } from '../grpc/deadline';
import type { Logger } from '../logger';

/** How soon a pass that fired nothing looks again at work that is already due. */
const BUSY_RETRY_MS = 100;

/** What a DueScheduler runs: durable due times kept in the database, fired by conditional writes. */
export interface DueWork {
  /**
   * Fires some of what is due at `now` and answers how many fired; 0 ends the pass. Each firing must be one
   * conditional write (the record still due, as read), so that of several replicas exactly one fires it.
   */
  fireDue(now: Date): Promise<number>;
  /** The earliest time something falls due, when known (an indexed query). */
  nextDueAt(): Promise<Date | null>;
}

export interface DueSchedulerOptions {
  /** Names the scheduler in logs. */
  name: string;
  work: DueWork;
  /** The longest sleep: how late this replica sees due times that another replica recorded. */
  idleCheckMs: number;
  logger: Logger;
}

/**
 * One replica's timer over durable due times (task alarms, window ends, agent runs). It sleeps until the next due
 * time, fires what is due, and looks again; a write on this replica that records an earlier due time wakes it
 * (`wake(at)`), and it looks at least every `idleCheckMs` for due times written elsewhere. Nothing is held in
 * memory that a crash could lose: the due times live in the records, and firing is a conditional write, so any
 * number of replicas may run it and each due time fires once.
 */
export class DueScheduler {
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private ticking = false;
  private again = false;
  private stopped = false;

  constructor(private readonly options: DueSchedulerOptions) {}

  start(): void {
    this.wake();
  }

  /** Looks for due work at `at` (now when absent), unless a pass is already planned before then. */
  wake(at?: Date): void {
    if (this.stopped) return;
    const when = Math.max(Date.now(), at?.getTime() ?? 0);
    if (when >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = when;
    // Outside the request that may be waking it: a pass must not run under that request's deadline, nor raise its
    // events as that request's (request-id.ts).
    this.timer = outsideRequest(() => setTimeout(() => void this.tick(), when - Date.now()));
  }

  /** Stops planning passes and waits for the one in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    while (this.ticking) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    const { work, idleCheckMs, logger, name } = this.options;
    try {
      let fired = 0;
      do {
        this.again = false;
        for (let count = 1; !this.stopped && count > 0; fired += count) count = await work.fireDue(new Date());
      } while (this.again && !this.stopped);
      const next = (await work.nextDueAt())?.getTime() ?? Number.POSITIVE_INFINITY;
      // Work due now that this pass could not take (all slots busy) is looked at again shortly, not in a busy loop.
      const earliest = fired === 0 ? Date.now() + BUSY_RETRY_MS : Date.now();
      this.wake(new Date(Math.max(earliest, Math.min(next, Date.now() + idleCheckMs))));
    } catch (error) {
      logger.error({ err: error, scheduler: name }, 'scheduler: could not fire due work; trying again');
      this.wake(new Date(Date.now() + Math.min(1_000, idleCheckMs)));
    } finally {
      this.ticking = false;
    }
  }
}
