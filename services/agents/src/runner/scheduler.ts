import type { AgentsDeps } from '../domain/deps';
import type { RunRecord } from '../repository/run.repository';
import { executeRun } from './execute';

/**
 * Executes due runs on this replica. The waits are durable: a waiting run is a record with `due_at`, so a run
 * recorded by a replica that died is executed by another one. The scheduler sleeps until the next due run (an
 * indexed query), is woken by the intake of this replica, and looks again at least every `idleCheckMs` for runs
 * recorded elsewhere. Claims are conditional updates: one replica executes a run; its lease is renewed while it
 * works, and an expired lease hands the run to another replica.
 */
export class RunScheduler {
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private ticking = false;
  private again = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: { deps: AgentsDeps; concurrency: number; idleCheckMs: number }) {}

  start(): void {
    this.wake();
  }

  /** Looks for due runs at `at` (now when absent). */
  wake(at?: Date): void {
    if (this.stopped) return;
    const when = Math.max(Date.now(), at?.getTime() ?? 0);
    if (when >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = when;
    this.timer = setTimeout(() => void this.tick(), when - Date.now());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    const { deps } = this.options;
    try {
      do {
        this.again = false;
        while (!this.stopped && this.inFlight.size < this.options.concurrency) {
          const now = deps.now();
          const run = await deps.runs.claimDue(now, new Date(now.getTime() + deps.settings.leaseMs));
          if (!run) break;
          this.track(run);
        }
      } while (this.again && !this.stopped);
      const next = await deps.runs.nextDueAt();
      const idle = Date.now() + this.options.idleCheckMs;
      this.wake(new Date(next ? Math.min(next.getTime(), idle) : idle));
    } catch (error) {
      deps.logger.error({ err: error }, 'run scheduler: could not look for due runs');
      this.wake(new Date(Date.now() + Math.min(1_000, this.options.idleCheckMs)));
    } finally {
      this.ticking = false;
    }
  }

  private track(run: RunRecord): void {
    const { deps } = this.options;
    const renew = setInterval(
      () => void deps.runs.renewLease(run.id, new Date(Date.now() + deps.settings.leaseMs)).catch(() => undefined),
      Math.max(100, Math.floor(deps.settings.leaseMs / 3)),
    );
    const work = executeRun(deps, run)
      .catch((error: unknown) => {
        // Left executing: its lease expires and a replica tries again (the send is idempotent).
        deps.logger.error({ err: error, run: run.id }, 'run failed unexpectedly; it is retried when its lease expires');
      })
      .finally(() => {
        clearInterval(renew);
        this.inFlight.delete(work);
        this.wake();
      });
    this.inFlight.add(work);
  }
}
