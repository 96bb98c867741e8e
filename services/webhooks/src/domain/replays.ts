import { AppError, iso, isoOrNull, newEvent, newId, notFound } from '@crm/shared';
import type { ReplayObject } from '@crm/shared/events';
import { parseOrThrow, replayBody } from '@crm/shared/schemas';
import type { ReplayRecord } from '../repository/replay.repository';
import type { WebhookDeps } from './deps';
import { requireWebhook } from './subscriptions';

/** Replays are kept (GET …/replays/{id}) as long as the events they replay. */
const REPLAY_RETENTION_FALLBACK_MS = 30 * 86_400_000;

/**
 * POST /v1/webhooks/{id}/replay: stores a job that queues the stored events of [since, until) that the subscription
 * receives (and of `types`, when given) to it, through the normal delivery engine. The replay worker runs it.
 */
export async function startReplay(deps: WebhookDeps, orgId: string, webhookId: string, rawBody: unknown): Promise<ReplayObject> {
  const body = parseOrThrow(replayBody, rawBody);
  const webhook = await requireWebhook(deps, orgId, webhookId);
  const now = deps.now();
  const since = new Date(body.since);
  // A window never reaches past now: events still to come are not the replay's (a later until is now).
  const until = body.until && new Date(body.until).getTime() < now.getTime() ? new Date(body.until) : now;
  const refuse = (field: string, issue: string) => new AppError('VALIDATION_ERROR', `${field} ${issue}.`, { fields: [{ field, issue }] });
  if (since.getTime() > now.getTime()) throw refuse('since', 'must not be in the future');
  if (until.getTime() <= since.getTime()) throw refuse('until', 'must be later than since');
  const unsubscribed = (body.types ?? []).filter((type: string) => !webhook.events.includes(type));
  if (unsubscribed.length > 0) throw refuse('types', `names kinds the subscription does not receive: ${unsubscribed.join(', ')}`);

  const record: ReplayRecord = {
    id: newId('replay'),
    org_id: orgId,
    webhook_id: webhook.id,
    status: 'pending',
    since,
    until,
    types: body.types ?? [],
    matched: 0,
    cursor: null,
    enqueued: false,
    delivered: 0,
    failed: 0,
    created_at: now,
    completed_at: null,
    lease_owner: null,
    lease_until: null,
    expires_at: new Date(now.getTime() + (deps.settings.eventRetentionMs || REPLAY_RETENTION_FALLBACK_MS)),
  };
  await deps.replays.insert(record);
  deps.replaysQueued();
  return viewReplay(record, { succeeded: 0, failed: 0 });
}

export async function getReplay(deps: WebhookDeps, orgId: string, webhookId: string, id: string): Promise<ReplayObject> {
  await requireWebhook(deps, orgId, webhookId);
  const record = await deps.replays.getById(orgId, webhookId, id);
  if (!record) throw notFound('replay');
  const finished = record.status === 'completed' || record.status === 'cancelled';
  const counts = finished
    ? { pending: 0, succeeded: record.delivered, failed: record.failed }
    : await deps.deliveries.replayCounts(orgId, webhookId, record.id);
  return viewReplay(record, counts);
}

/**
 * Completes each replay whose events are all queued and whose deliveries all have an outcome, with its event
 * (webhook.replay.completed). The update is conditional on the status read, so one replica completes it.
 */
export async function settleReplays(deps: WebhookDeps): Promise<number> {
  let settled = 0;
  for (const record of await deps.replays.settling(50)) {
    const webhook = await deps.webhooks.getById(record.org_id, record.webhook_id);
    const counts = await deps.deliveries.replayCounts(record.org_id, record.webhook_id, record.id);
    if (webhook && counts.pending > 0) continue;
    const at = deps.now();
    const set: Partial<ReplayRecord> = {
      status: webhook ? 'completed' : 'cancelled',
      delivered: counts.succeeded,
      failed: counts.failed,
      completed_at: at,
    };
    const object = viewReplay({ ...record, ...set }, counts);
    const events = webhook ? [newEvent(record.org_id, 'webhook.replay.completed', { object }, at)] : [];
    if (await deps.replays.finish(record, set, events)) settled += 1;
  }
  return settled;
}

export function viewReplay(record: ReplayRecord, counts: { succeeded: number; failed: number }): ReplayObject {
  return {
    id: record.id,
    webhook_id: record.webhook_id,
    status: record.status,
    since: iso(record.since),
    until: iso(record.until),
    types: record.types,
    matched: record.matched,
    delivered: counts.succeeded,
    failed: counts.failed,
    created_at: iso(record.created_at),
    completed_at: isoOrNull(record.completed_at),
  };
}
