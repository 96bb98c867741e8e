import type { DomainEvent } from '@crm/shared';
import type { WebhookDeps } from './deps';
import { eventBody, newDelivery } from './event-body';

export interface ConsumedEvent {
  event: DomainEvent;
  trace: Record<string, string>;
}

/**
 * Turns events into one delivery per active subscription of the same organization that subscribed to the kind.
 * Idempotent: a re-consumed event finds its deliveries already stored (unique dedup key) and adds none.
 * Returns how many deliveries were new.
 */
export async function fanOut(deps: WebhookDeps, events: ConsumedEvent[]): Promise<number> {
  const byOrg = new Map<string, ConsumedEvent[]>();
  for (const consumed of events) byOrg.set(consumed.event.org_id, [...(byOrg.get(consumed.event.org_id) ?? []), consumed]);

  let inserted = 0;
  for (const [orgId, orgEvents] of byOrg) {
    const subscriptions = await deps.webhooks.listActive(orgId);
    if (subscriptions.length === 0) continue;
    const now = deps.now();
    for (const { event, trace } of orgEvents) {
      const body = eventBody(event);
      for (const webhook of subscriptions) {
        if (!webhook.events.includes(event.type)) continue;
        const record = newDelivery({ webhook, eventId: event.id, eventType: event.type, body, now, retentionMs: deps.settings.retentionMs, fromStream: true, trace });
        if (await deps.deliveries.insertIfNew(record)) inserted++;
      }
    }
  }
  return inserted;
}
