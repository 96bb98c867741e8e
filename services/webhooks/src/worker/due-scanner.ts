import type { WebhookDeps } from '../domain/deps';
import type { DeliveryDispatcher } from './delivery-dispatcher';

/** Deliveries claimed per query. */
const CLAIM_BATCH = 200;

/**
 * Finds the deliveries that are due in the database — retries whose time came, held ones resumed, those given back
 * by a full queue, those of a replica that died holding their lease — and leases them to this replica's
 * dispatcher while it has room. The schedule lives in the database (`next_attempt_at`), so a restart loses
 * nothing. It sleeps until the next due time or expiring lease (an indexed query), or the earliest retry stored
 * meanwhile, and is woken when room appears or held deliveries are resumed: no work when idle.
 */
export class DueScanner {
  private stopped = true;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private woken = false;
  /** The current sleep's timer and end. */
  private timer: NodeJS.Timeout | undefined;
  private wakeAt = 0;
  /** The earliest retry stored since this pass began: the pass's next-due query may not have seen it. */
  private earliestRetry = Infinity;

  constructor(
    private readonly deps: WebhookDeps,
    private readonly dispatcher: DeliveryDispatcher,
    /** The longest sleep with nothing due (WEBHOOK_IDLE_CHECK_MS). */
    private readonly idleCheckMs: number,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  nudge(): void {
    this.woken = true;
    this.wake?.();
  }

  /**
   * A retry was stored, due at `at`: the scanner sleeps no longer than that. No query is made before it is due, so
   * a failing endpoint's retries (minutes away) cost nothing, however many there are.
   */
  retryAt(at: Date): void {
    const due = at.getTime() + 5;
    this.earliestRetry = Math.min(this.earliestRetry, due);
    const wake = this.wake;
    if (!wake || due >= this.wakeAt) return;
    clearTimeout(this.timer);
    this.wakeAt = due;
    this.timer = setTimeout(wake, Math.max(0, due - Date.now()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { deps } = this;
    while (!this.stopped) {
      this.woken = false;
      this.earliestRetry = Infinity;
      const limit = Math.min(CLAIM_BATCH, this.dispatcher.room());
      const busy = this.dispatcher.busyEndpoints();
      let claimed = 0;
      try {
        if (limit > 0) {
          const due = await deps.deliveries.claimDue(deps.now(), limit, deps.settings.leaseMs, deps.owner, busy);
          claimed = due.length;
          this.dispatcher.accept(due.map((delivery) => ({ delivery })));
        }
      } catch (error) {
        deps.logger.error({ err: error }, 'claiming due deliveries failed; retrying');
        await this.sleep(1_000);
        continue;
      }
      // A full batch means more may be due: claim again at once. Otherwise sleep until the next due time, or
      // until room or resumed deliveries wake us.
      if (this.stopped || this.woken || (limit > 0 && claimed === limit)) continue;
      const idle = limit > 0 ? await this.untilNextDue(busy) : this.idleCheckMs;
      if (!this.woken && !this.stopped) await this.sleep(Math.min(idle, Math.max(0, this.earliestRetry - Date.now())));
    }
  }

  private async untilNextDue(exclude: string[]): Promise<number> {
    try {
      const next = await this.deps.deliveries.nextWakeAt(exclude);
      const wait = next ? next.getTime() - this.deps.now().getTime() + 5 : Infinity;
      return Math.max(5, Math.min(this.idleCheckMs, wait));
    } catch (error) {
      this.deps.logger.error({ err: error }, 'reading the next due delivery failed; retrying');
      return 1_000;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = () => {
        clearTimeout(this.timer);
        this.wake = undefined;
        resolve();
      };
      this.wakeAt = Date.now() + ms;
      this.timer = setTimeout(this.wake, ms);
    });
  }
}
