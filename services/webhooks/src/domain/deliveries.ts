import { newId, notFound, type Nullable } from '@crm/shared';
import { exampleEventData, isEventType, type EventType } from '@crm/shared/events';
import { parseOrThrow, testWebhookBody } from '@crm/shared/schemas';
import type { Delivery, DeliveryDetail } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { DeliveryQuery, DeliveryRecord } from '../repository/delivery.repository';
import type { WebhookRecord } from '../repository/webhook.repository';
import { attemptNow } from './attempt';
import { viewDelivery, viewDeliveryDetail } from './delivery.view';
import type { WebhookDeps } from './deps';
import { eventBody, newDelivery } from './event-body';
import { requireWebhook } from './subscriptions';

export async function listDeliveries(deps: WebhookDeps, orgId: string, webhookId: string, query: DeliveryQuery) {
  await requireWebhook(deps, orgId, webhookId);
  const [page, total] = await Promise.all([
    deps.deliveries.list(orgId, webhookId, query),
    deps.deliveries.countForWebhook(orgId, webhookId),
  ]);
  return { items: page.items.map(viewDelivery), hasMore: page.hasMore, next: page.next, total };
}

export async function getDelivery(deps: WebhookDeps, orgId: string, id: string): Promise<Nullable<DeliveryDetail>> {
  const record = await deps.deliveries.getById(orgId, id);
  if (!record) throw notFound('delivery');
  return viewDeliveryDetail(record);
}

/**
 * #88: sends an example event of the given kind (default: the first subscribed) now, within the call, and reports
 * the outcome. One attempt, no retries, no effect on the subscription's monitoring fields; allowed while paused.
 */
export async function testWebhook(deps: WebhookDeps, orgId: string, webhookId: string, rawBody: unknown): Promise<Nullable<Delivery>> {
  const body = parseOrThrow(testWebhookBody, rawBody);
  const webhook = await requireWebhook(deps, orgId, webhookId);
  return deps.manualAttempts.run(orgId, () => sendTest(deps, webhook, body.event_type));
}

async function sendTest(deps: WebhookDeps, webhook: WebhookRecord, eventType: EventType | undefined): Promise<Nullable<Delivery>> {
  const now = deps.now();
  const type = eventType ?? webhook.events.find(isEventType) ?? 'contact.created';
  const event = { id: newId('event'), type, created_at: now.toISOString(), data: exampleEventData(type, now) };
  const record = newDelivery({
    webhook,
    eventId: event.id,
    eventType: type,
    body: eventBody(event),
    now,
    retentionMs: deps.settings.retentionMs,
    isTest: true,
    lease: leaseFor(deps, now),
  });
  await deps.deliveries.insertNew([record]);
  return viewDelivery(await attemptNow(deps, record, 'test'));
}

/**
 * #90: a new delivery of the same event (same id, same body bytes) with `redelivery_of`, attempted within the call
 * even while the subscription is paused. If that attempt fails, later retries follow the schedule (held while paused).
 */
export async function redeliver(deps: WebhookDeps, orgId: string, deliveryId: string): Promise<Nullable<Delivery>> {
  const original = await deps.deliveries.getById(orgId, deliveryId);
  if (!original) throw notFound('delivery');
  const webhook = await requireWebhook(deps, orgId, original.webhook_id);
  return deps.manualAttempts.run(orgId, () => sendAgain(deps, webhook, original));
}

async function sendAgain(deps: WebhookDeps, webhook: WebhookRecord, original: DeliveryRecord): Promise<Nullable<Delivery>> {
  const now = deps.now();
  const record = newDelivery({
    webhook,
    eventId: original.event_id,
    eventType: original.event_type,
    body: original.request_body,
    now,
    retentionMs: deps.settings.retentionMs,
    isTest: original.is_test,
    redeliveryOf: original.id,
    trace: original.trace,
    lease: leaseFor(deps, now),
  });
  await deps.deliveries.insertNew([record]);
  return viewDelivery(await attemptNow(deps, record, 'redeliver'));
}

const leaseFor = (deps: WebhookDeps, now: Date) => ({ owner: deps.owner, until: new Date(now.getTime() + deps.settings.leaseMs) });
