import type { DueWork } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { queueReplay } from '../domain/replay-queue';
import { settleReplays } from '../domain/replays';

/** How often unfinished replays are looked at while some exist (queued events waiting for their outcomes). */
const ACTIVE_CHECK_MS = 1_000;

/**
 * The stored replay jobs, as a DueScheduler's work (service.ts): each pass leases one replay whose events are still
 * to be queued and queues them page by page (replay-queue.ts), then completes those whose deliveries all have an
 * outcome. The jobs and their positions live in the database and every step is a conditional write, so a replica
 * that restarts (or another one, once the lease expires) resumes them, and each completes once. Woken when a replay
 * is stored on this replica; while replays are unfinished it looks every second, else every WEBHOOK_IDLE_CHECK_MS.
 */
export function replayWork(deps: WebhookDeps): DueWork {
  return {
    async fireDue(now) {
      const claimed = await deps.replays.claimToQueue(deps.owner, now, deps.settings.leaseMs);
      if (claimed) await queueReplay(deps, claimed);
      return (claimed ? 1 : 0) + (await settleReplays(deps));
    },
    async nextDueAt() {
      return (await deps.replays.settling(1)).length > 0 ? new Date(Date.now() + ACTIVE_CHECK_MS) : null;
    },
  };
}
