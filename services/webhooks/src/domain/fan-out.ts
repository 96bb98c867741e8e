import type { ConsumedEvent } from '@crm/shared';
import type { WebhookRecord } from '../repository/webhook.repository';
import type { DeliveryRecord } from '../repository/delivery.repository';
import type { LeasedDelivery, WebhookDeps } from './deps';
import { eventBody, newDelivery } from './event-body';

/**
 * Deliveries per bulk insert. A fetched batch of a thousand events to twenty subscriptions is twenty thousand
 * deliveries: inserted at once, the first of them waited seconds for the last to be stored before it was sent.
 * In parts, each part is sent while the next is inserted; each part is built only when the previous one is stored,
 * so the fan-out holds one part in memory, not the batch's (20,000 records were 12 MB alive in a backlog's drain).
 */
const INSERT_PART = 1_000;

/**
 * Turns a batch of events into one delivery per active subscription of the event's organization that subscribed
 * to its kind: one read of the subscriptions per batch, one bulk insert per INSERT_PART deliveries, each part
 * handed to `queue` (the worker) as soon as it is stored. Idempotent: a re-consumed event finds its deliveries
 * already stored (unique dedup key) and adds none. New deliveries are stored leased to this replica, which sends
 * their first attempt at once; if it dies, the lease expires and any replica picks them up. Resolves once every
 * delivery of the batch is stored.
 */
export async function fanOut(deps: WebhookDeps, events: ConsumedEvent[], queue: (leased: LeasedDelivery[]) => void): Promise<void> {
  const subscriptions = await deps.webhooks.listActive([...new Set(events.map(({ event }) => event.org_id))]);
  if (subscriptions.length === 0) return;
  deps.subscriptions.prime(subscriptions);
  const byOrg = new Map<string, WebhookRecord[]>();
  for (const webhook of subscriptions) byOrg.set(webhook.org_id, [...(byOrg.get(webhook.org_id) ?? []), webhook]);

  const now = deps.now();
  const lease = { owner: deps.owner, until: new Date(now.getTime() + deps.settings.leaseMs) };
  const webhookOf = new Map(subscriptions.map((webhook) => [webhook.id, webhook]));
  const insert = async (part: DeliveryRecord[]) => {
    const inserted = await deps.deliveries.insertNew(part);
    if (inserted.length > 0) queue(inserted.map((delivery) => ({ delivery, webhook: webhookOf.get(delivery.webhook_id) })));
  };
  let part: DeliveryRecord[] = [];
  for (const { event, trace } of events) {
    const targets = (byOrg.get(event.org_id) ?? []).filter((webhook) => webhook.events.includes(event.type));
    if (targets.length === 0) continue;
    const body = eventBody(event);
    for (const webhook of targets) {
      part.push(
        newDelivery({
          webhook,
          eventId: event.id,
          eventType: event.type,
          body,
          now,
          retentionMs: deps.settings.retentionMs,
          fromStream: true,
          trace,
          lease,
        }),
      );
      if (part.length === INSERT_PART) {
        await insert(part);
        part = [];
      }
    }
  }
  if (part.length > 0) await insert(part);
}
