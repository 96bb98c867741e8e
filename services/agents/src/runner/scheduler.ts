import { DueScheduler } from '@crm/shared';
import type { AgentsDeps } from '../domain/deps';
import type { ClaimedRun } from '../repository/run.repository';
import { executeRun } from './execute';

/**
 * A pass starts this long after the run it was planned for, so that the runs falling due meanwhile are claimed
 * with it: at 50 runs/s, one pass (claim, update, next due time) for ~3 runs instead of one per run.
 */
const GATHER_MS = 50;

/**
 * Executes due runs on this replica. The waits are durable: a waiting run is a record with `due_at`, so a run
 * recorded by a replica that died is executed by another one. The shared DueScheduler sleeps until the next due run
 * (an indexed query), is woken by the intake of this replica, and looks again at least every `idleCheckMs` for runs
 * recorded elsewhere. A pass claims every due run it has room for at once (up to `concurrency` executing); when
 * every slot was taken, a run that finishes wakes it. Claims are conditional updates: one replica executes a run;
 * its lease is renewed while it works, and an expired lease hands the run to another replica.
 */
export class RunScheduler {
  private readonly timer: DueScheduler;
  private readonly inFlight = new Set<Promise<void>>();
  /** The last claim filled every slot: due runs may be left, and the next run that finishes looks for them. */
  private full = false;
  /** The last claim took every due run: the pass ends without asking again (its next due time is read after it). */
  private drained = false;

  constructor(private readonly options: { deps: AgentsDeps; concurrency: number; idleCheckMs: number }) {
    const { deps } = options;
    this.timer = new DueScheduler({
      name: 'agent runs',
      idleCheckMs: options.idleCheckMs,
      logger: deps.logger,
      work: { fireDue: (now) => this.claim(now), nextDueAt: async () => later(await deps.runs.nextDueAt()) },
    });
  }

  start(): void {
    this.timer.start();
  }

  /** Looks for due runs at `at` (now when absent). */
  wake(at?: Date): void {
    this.timer.wake(later(at ?? null) ?? undefined);
  }

  async stop(): Promise<void> {
    await this.timer.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Takes as many due runs as this replica has room for, in one claim. */
  private async claim(now: Date): Promise<number> {
    const { deps, concurrency } = this.options;
    const room = concurrency - this.inFlight.size;
    this.full = room <= 0;
    if (this.full || this.drained) {
      this.drained = false;
      return 0;
    }
    const runs = await deps.runs.claimDue(now, new Date(now.getTime() + deps.settings.leaseMs), room);
    this.full = runs.length >= room;
    // Fewer than asked for: none is left due now. (After a claim of none the pass ends by itself.)
    this.drained = runs.length > 0 && !this.full;
    for (const run of runs) this.track(run);
    return runs.length;
  }

  private track(run: ClaimedRun): void {
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
        if (this.full) this.timer.wake();
      });
    this.inFlight.add(work);
  }
}

const later = (at: Date | null): Date | null => (at ? new Date(at.getTime() + GATHER_MS) : null);
