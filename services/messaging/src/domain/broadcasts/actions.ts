import { AppError, type OutboxEntry, retryOnConflict, type Revised, WriteConflict } from '@crm/shared';
import { launchBroadcastBody, parseOrThrow, scheduleBroadcastBody, type BroadcastStatus } from '@crm/shared/schemas';
import type { MessagingDeps } from '../deps';
import type { BroadcastRecord } from '../../repository/broadcast.repository';
import { startedEvents } from './broadcast-events';
import { invalidStatus, requireBroadcast, withFreshStats } from './crud';
import { checkLaunch } from './launch-checks';
import { viewBroadcast, type BroadcastView } from './views';

const LAUNCHABLE: readonly BroadcastStatus[] = ['draft', 'scheduled'];
const PAUSABLE: readonly BroadcastStatus[] = ['processing', 'sending'];
const RESUMABLE: readonly BroadcastStatus[] = ['paused'];
const CANCELLABLE: readonly BroadcastStatus[] = ['scheduled', 'processing', 'sending', 'paused'];
/** How far ahead a broadcast may be scheduled. */
const MAX_SCHEDULE_AHEAD_MS = 365 * 24 * 3_600_000;

/**
 * Applies a transition from the statuses `from`. Launch and schedule also name the revision their checks read (a
 * concurrent PATCH would otherwise launch an unchecked configuration); pause, resume and cancel depend on the
 * status alone, so the worker's own updates (processing → sending, statistics) never make them fail. When another
 * request changed the status first, the answer is the refusal its present status deserves; when it changed the
 * broadcast but not its status, WriteConflict makes the action read and check it again (the conflict policy).
 */
async function apply(
  deps: MessagingDeps,
  current: Revised<BroadcastRecord>,
  action: string,
  from: readonly BroadcastStatus[],
  set: Partial<BroadcastRecord>,
  options: { checkedRevision?: boolean; events?: (next: BroadcastRecord, at: Date) => OutboxEntry[] } = {},
): Promise<BroadcastRecord> {
  const rev = options.checkedRevision ? current.rev : undefined;
  const at = deps.now();
  const change = { ...set, updated_at: at };
  const events = options.events?.({ ...current, ...change }, at) ?? [];
  const updated = await deps.broadcasts.records.transition(current.id, from, change, rev, events);
  if (updated) return withFreshStats(deps, updated);
  const now = await requireBroadcast(deps, current.org_id, current.id);
  if (!from.includes(now.status)) throw invalidStatus(now, action, from);
  throw new WriteConflict('broadcast');
}

/** #64: `draft`/`scheduled` → `processing`; the recipient list is written and sent in the background (202). */
export async function launchBroadcast(deps: MessagingDeps, orgId: string, id: string, rawBody: unknown): Promise<BroadcastView> {
  const body = parseOrThrow(launchBroadcastBody, rawBody ?? {});
  return retryOnConflict(async () => {
    const current = await requireBroadcast(deps, orgId, id);
    if (!LAUNCHABLE.includes(current.status)) throw invalidStatus(current, 'launched', LAUNCHABLE);
    const override = body.confirmWarmupOverride === true;
    await checkLaunch(deps, current, { override });
    const launched = await apply(deps, current, 'launched', LAUNCHABLE, startFields(deps, override), {
      checkedRevision: true,
      events: startedEvents,
    });
    deps.broadcasts.wake();
    return viewBroadcast(launched);
  });
}

export const startFields = (deps: MessagingDeps, override: boolean): Partial<BroadcastRecord> => ({
  status: 'processing',
  started_at: deps.now(),
  warmup_override: override,
  error: null,
});

/** #65: checked now as a launch would be, launched by the scheduler at `scheduledAt` (checked again then). */
export async function scheduleBroadcast(deps: MessagingDeps, orgId: string, id: string, rawBody: unknown): Promise<BroadcastView> {
  const body = parseOrThrow(scheduleBroadcastBody, rawBody);
  const at = new Date(body.scheduledAt);
  const now = deps.now().getTime();
  if (at.getTime() <= now || at.getTime() > now + MAX_SCHEDULE_AHEAD_MS) {
    const issue = at.getTime() <= now ? 'must be in the future' : 'must be within a year';
    throw new AppError('VALIDATION_ERROR', `Invalid request: scheduledAt: ${issue}.`, { fields: [{ field: 'scheduledAt', issue }] });
  }
  return retryOnConflict(async () => {
    const current = await requireBroadcast(deps, orgId, id);
    if (!LAUNCHABLE.includes(current.status)) throw invalidStatus(current, 'scheduled', LAUNCHABLE);
    const override = body.confirmWarmupOverride === true;
    await checkLaunch(deps, current, { override });
    const scheduled = await apply(deps, current, 'scheduled', LAUNCHABLE, {
      status: 'scheduled',
      scheduled_at: at,
      warmup_override: override,
    });
    deps.broadcasts.wake();
    return viewBroadcast(scheduled);
  });
}

/** #66: the senders stop before their next message (within a quarter of a second); nothing pending is lost. */
export async function pauseBroadcast(deps: MessagingDeps, orgId: string, id: string): Promise<BroadcastView> {
  return retryOnConflict(async () => {
    const current = await requireBroadcast(deps, orgId, id);
    if (!PAUSABLE.includes(current.status)) throw invalidStatus(current, 'paused', PAUSABLE);
    const paused = await apply(deps, current, 'paused', PAUSABLE, { status: 'paused' });
    await deps.broadcasts.lanes.setState(id, ['active'], 'paused', deps.now());
    return viewBroadcast(paused);
  });
}

/** #67: `paused` → `processing`, with the connection and warm-up checks on what is left to send. */
export async function resumeBroadcast(deps: MessagingDeps, orgId: string, id: string, rawBody: unknown): Promise<BroadcastView> {
  const body = parseOrThrow(launchBroadcastBody, rawBody ?? {});
  return retryOnConflict(async () => {
    const current = await requireBroadcast(deps, orgId, id);
    if (!RESUMABLE.includes(current.status)) throw invalidStatus(current, 'resumed', RESUMABLE);
    const override = body.confirmWarmupOverride === true || current.warmup_override;
    await checkLaunch(deps, current, { override, resuming: true });
    const resumed = await apply(deps, current, 'resumed', RESUMABLE, { status: 'processing', error: null, warmup_override: override });
    await deps.broadcasts.lanes.setState(id, ['paused'], 'active', deps.now());
    deps.broadcasts.wake();
    return viewBroadcast(resumed);
  });
}

/** #68: stops for good; recipients not yet sent stay `pending` in the log. */
export async function cancelBroadcast(deps: MessagingDeps, orgId: string, id: string): Promise<BroadcastView> {
  return retryOnConflict(async () => {
    const current = await requireBroadcast(deps, orgId, id);
    if (!CANCELLABLE.includes(current.status)) throw invalidStatus(current, 'cancelled', CANCELLABLE);
    const cancelled = await apply(deps, current, 'cancelled', CANCELLABLE, { status: 'cancelled', completed_at: deps.now() });
    await deps.broadcasts.lanes.setState(id, ['active', 'paused'], 'cancelled', deps.now());
    return viewBroadcast(cancelled);
  });
}
