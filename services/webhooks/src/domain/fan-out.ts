import type { DomainEvent } from '@crm/shared';
import type { WebhookDeps } from './deps';
import type { DeliveryRecord } from '../repository/delivery.repository';
import { eventBody, newDelivery } from './event-body';

export interface ConsumedEvent {
  event: DomainEvent;
  trace: Record<string, string>;
}

/**
 * Turns events into one delivery per active subscription of the same organization that subscribed to the kind.
 * Idempotent: a re-consumed event finds its deliveries already stored (unique dedup key) and adds none.
 * New deliveries are stored leased to this replica, which sends their first attempt at once; if it dies, the
 * lease expires and any replica's scan picks them up. Returns the new deliveries.
 */
export async function fanOut(deps: WebhookDeps, events: ConsumedEvent[]): Promise<DeliveryRecord[]> {
  const byOrg = new Map<string, ConsumedEvent[]>();
  for (const consumed of events) byOrg.set(consumed.event.org_id, [...(byOrg.get(consumed.event.org_id) ?? []), consumed]);

  const inserted: DeliveryRecord[] = [];
  for (const [orgId, orgEvents] of byOrg) {
    const subscriptions = await deps.webhooks.listActive(orgId);
    if (subscriptions.length === 0) continue;
    const now = deps.now();
    for (const { event, trace } of orgEvents) {
      const body = eventBody(event);
      for (const webhook of subscriptions) {
        if (!webhook.events.includes(event.type)) continue;
        const lease = { owner: deps.owner, until: new Date(now.getTime() + deps.settings.leaseMs) };
        const record = newDelivery({
          webhook,
          eventId: event.id,
          eventType: event.type,
          body,
          now,
          retentionMs: deps.settings.retentionMs,
          fromStream: true,
          trace,
          lease,
        });
        if (await deps.deliveries.insertIfNew(record)) inserted.push(record);
      }
    }
  }
  return inserted;
}
