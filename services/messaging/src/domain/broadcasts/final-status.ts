import { retryOnConflict, WriteConflict } from '@crm/shared';
import type { MessagingDeps } from '../deps';
import type { BroadcastStats } from '../../repository/broadcast.repository';
import { finishedEvents } from './broadcast-events';

const FINISHED = ['completed', 'completed_with_errors', 'failed'] as const;

/**
 * When the last lane is done: the final status from the recipients — `failed` when every send failed,
 * `completed_with_errors` when some did, `completed` otherwise — and the exact statistics, with
 * broadcast.completed or broadcast.failed carrying them. The transition is conditional on the status, so of the
 * lanes finishing at once exactly one raises it.
 */
export async function completeIfDone(deps: MessagingDeps, broadcastId: string): Promise<void> {
  const { records, recipients, lanes } = deps.broadcasts;
  if ((await lanes.unfinished(broadcastId)) > 0) return;
  const stats = await recipients.countStats(broadcastId);
  if (stats.total > 0 && (await recipients.countPending(broadcastId)) > 0) return;
  const current = await records.getAnyOrg(broadcastId);
  if (!current) return;
  const now = deps.now();
  const set = { status: finalStatus(stats), completed_at: now, updated_at: now };
  await records.transition(broadcastId, ['sending', 'processing'], set, undefined, finishedEvents({ ...current, ...set, stats }, now));
  await records.saveStats(broadcastId, stats, now);
  // A delivery that failed while this ran found the broadcast still sending: count once more.
  await settleFinalStatus(deps, broadcastId);
}

/**
 * Deliveries fail after the last send too (131042 arrives with the status callbacks): a finished broadcast's
 * status follows its recipients, so every send failing later still makes it `failed` (raising broadcast.failed).
 * Another writer changing the broadcast meanwhile makes it count again (the conflict policy).
 */
export function settleFinalStatus(deps: MessagingDeps, broadcastId: string): Promise<void> {
  const { records, recipients } = deps.broadcasts;
  return retryOnConflict(async () => {
    const broadcast = await records.getAnyOrg(broadcastId);
    if (!broadcast || !(FINISHED as readonly string[]).includes(broadcast.status)) return;
    const now = deps.now();
    const stats = await recipients.countStats(broadcastId);
    const status = finalStatus(stats);
    if (status !== broadcast.status) {
      const set = { status, updated_at: now };
      const events = finishedEvents({ ...broadcast, ...set, stats }, now);
      if (!(await records.transition(broadcastId, [broadcast.status], set, broadcast.rev, events))) throw new WriteConflict('broadcast');
    }
    await records.saveStats(broadcastId, stats, now);
  });
}

const finalStatus = (stats: BroadcastStats): (typeof FINISHED)[number] =>
  stats.total > 0 && stats.failed === stats.total ? 'failed' : stats.failed > 0 ? 'completed_with_errors' : 'completed';
