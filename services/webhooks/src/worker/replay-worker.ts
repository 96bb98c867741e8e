import { queueReplay } from '../domain/replay-queue';
import { settleReplays } from '../domain/replays';
import type { WebhookDeps } from '../domain/deps';

/** How often an unfinished replay is looked at while one exists (queued events waiting for their outcomes). */
const ACTIVE_CHECK_MS = 1_000;

/**
 * Runs the stored replay jobs: leases one whose events are still to be queued and queues them page by page
 * (replay-queue.ts), then completes those whose deliveries all have an outcome. The jobs and their positions live
 * in the database, so a replica that restarts (or another one, once the lease expires) resumes them. Woken when a
 * replay is stored on this replica; otherwise it looks every second while replays are unfinished, and every
 * WEBHOOK_IDLE_CHECK_MS when there are none.
 */
export function replayWorker(deps: WebhookDeps, idleCheckMs: number) {
  let stopped = true;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function tick(): Promise<boolean> {
    const claimed = await deps.replays.claimToQueue(deps.owner, deps.now(), deps.settings.leaseMs);
    if (claimed) await queueReplay(deps, claimed);
    await settleReplays(deps);
    return claimed !== null || (await deps.replays.settling(1)).length > 0;
  }

  async function run(): Promise<void> {
    while (!stopped) {
      let active = false;
      try {
        active = await tick();
      } catch (error) {
        deps.logger.error({ err: error }, 'running replays failed; retrying');
      }
      if (!stopped) await sleep(active ? ACTIVE_CHECK_MS : idleCheckMs);
    }
  }

  return {
    start(): void {
      if (!stopped) return;
      stopped = false;
      loop = run();
    },
    nudge(): void {
      wake?.();
    },
    async stop(): Promise<void> {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
