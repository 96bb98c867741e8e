import { AppError, type KeysetPosition, notFound, type Nullable } from '@crm/shared';
import { createWebhookBody, parseOrThrow, rotateSecretBody, updateWebhookBody } from '@crm/shared/schemas';
import type { Webhook } from '@crm/proto/gen/webhooks/v1/webhooks';
import { generateSecret } from '../delivery/secrets';
import { newWebhookRecord, type WebhookRecord, type WebhookStatus } from '../repository/webhook.repository';
import type { WebhookDeps } from './deps';
import { checkSubscriptionUrl } from './target-url';
import { viewWebhook } from './webhook.view';

export async function listWebhooks(
  deps: WebhookDeps,
  orgId: string,
  query: { status?: WebhookStatus | null; limit: number; after: KeysetPosition | undefined },
) {
  const [page, total] = await Promise.all([deps.webhooks.list(orgId, query), deps.webhooks.count(orgId)]);
  const backlogs = await deps.deliveries.backlogOf(
    orgId,
    page.items.map((record) => record.id),
  );
  const now = deps.now();
  const items = page.items.map((record) => viewWebhook(record, { now, backlog: backlogs.get(record.id) }));
  return { items, hasMore: page.hasMore, next: page.next, total };
}

export async function getWebhook(deps: WebhookDeps, orgId: string, id: string): Promise<Nullable<Webhook>> {
  return withBacklog(deps, await requireWebhook(deps, orgId, id));
}

/** The view with its backlog: one indexed aggregate over its undelivered deliveries. */
async function withBacklog(deps: WebhookDeps, record: WebhookRecord, options: { withSecret?: boolean } = {}): Promise<Nullable<Webhook>> {
  const backlog = (await deps.deliveries.backlogOf(record.org_id, [record.id])).get(record.id);
  return viewWebhook(record, { ...options, now: deps.now(), backlog });
}

/** `keyId`: the key making the call, which the subscription then answers to (revoking it pauses the subscription). */
export async function createWebhook(deps: WebhookDeps, orgId: string, rawBody: unknown, keyId: string | null): Promise<Nullable<Webhook>> {
  const body = parseOrThrow(createWebhookBody, rawBody);
  await checkSubscriptionUrl(deps.settings, body.url);
  await requireRoomForSubscription(deps, orgId);
  const now = deps.now();
  const record = newWebhookRecord(
    { org_id: orgId, name: body.name, url: body.url, events: body.events, secret: generateSecret(), key_id: keyId },
    now,
  );
  await deps.webhooks.insert(record);
  return viewWebhook(record, { withSecret: true, now });
}

/**
 * PATCH: `status: active` reactivates (consecutive_failures back to 0, held retries due again); `paused` pauses by
 * hand. Setting the status a subscription already has changes nothing.
 */
export async function updateWebhook(
  deps: WebhookDeps,
  orgId: string,
  id: string,
  rawBody: unknown,
  keyId: string | null,
): Promise<Nullable<Webhook>> {
  const body = parseOrThrow(updateWebhookBody, rawBody);
  const current = await requireWebhook(deps, orgId, id);
  if (body.url !== undefined) await checkSubscriptionUrl(deps.settings, body.url);
  const now = deps.now();
  // The gateway let this key write only because it reads every subscribed kind: it now answers for the subscription.
  const set: Partial<WebhookRecord> = { updated_at: now, ...(keyId ? { key_id: keyId } : {}) };
  if (body.name !== undefined) set.name = body.name;
  if (body.url !== undefined) set.url = body.url;
  if (body.events !== undefined) set.events = body.events;
  const reactivating = body.status === 'active' && current.status === 'paused';
  if (reactivating) Object.assign(set, { status: 'active', consecutive_failures: 0, paused_reason: null });
  if (body.status === 'paused' && current.status === 'active') Object.assign(set, { status: 'paused', paused_reason: 'manual' });

  const updated = await deps.webhooks.update(orgId, id, set);
  if (!updated) throw notFound('webhook');
  deps.subscriptions.forget(id);
  if (reactivating && (await deps.deliveries.resumeHeld(orgId, id, now)) > 0) deps.deliveriesQueued();
  return withBacklog(deps, updated);
}

/** Drops the subscription with its log and its pending retries. */
export async function deleteWebhook(deps: WebhookDeps, orgId: string, id: string): Promise<void> {
  if (!(await deps.webhooks.delete(orgId, id))) throw notFound('webhook');
  deps.subscriptions.forget(id);
  await deps.deliveries.deleteForWebhook(orgId, id);
}

/**
 * A new secret, shown once. The replaced one keeps signing next to it for `overlap_hours` (default 24 h, 0 ends it
 * at once), so receivers can switch without rejecting a delivery. A second rotation within the window drops the
 * oldest secret.
 */
export async function rotateSecret(deps: WebhookDeps, orgId: string, id: string, rawBody: unknown): Promise<Nullable<Webhook>> {
  const body = parseOrThrow(rotateSecretBody, rawBody);
  const current = await requireWebhook(deps, orgId, id);
  const now = deps.now();
  const overlapMs = (body.overlap_hours ?? deps.settings.rotationOverlapHours) * 3_600_000;
  const updated = await deps.webhooks.update(orgId, id, {
    secret: generateSecret(),
    previous_secret: overlapMs > 0 ? current.secret : null,
    previous_secret_expires_at: overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null,
    updated_at: now,
  });
  if (!updated) throw notFound('webhook');
  deps.subscriptions.forget(id);
  return withBacklog(deps, updated, { withSecret: true });
}

/** The per-organization cap (WEBHOOK_MAX_SUBSCRIPTIONS): each subscription costs every event of the organization a delivery. */
async function requireRoomForSubscription(deps: WebhookDeps, orgId: string): Promise<void> {
  const limit = deps.settings.maxSubscriptions;
  if ((await deps.webhooks.count(orgId)) < limit) return;
  throw new AppError('WEBHOOK_LIMIT_EXCEEDED', `The organization already has ${limit} webhook subscriptions, the most it may have.`, {
    limit,
  });
}

export async function requireWebhook(deps: WebhookDeps, orgId: string, id: string): Promise<WebhookRecord> {
  const record = await deps.webhooks.getById(orgId, id);
  if (!record) throw notFound('webhook');
  return record;
}
