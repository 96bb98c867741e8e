import type { ConsumedEvent } from '@crm/shared';
import type { WebhookRecord } from '../repository/webhook.repository';
import type { DeliveryRecord } from '../repository/delivery.repository';
import type { LeasedDelivery, WebhookDeps } from './deps';
import { eventBody, newDelivery } from './event-body';
import { UnstoredPart } from './unstored-part';

/**
 * Deliveries per part. A fetched batch of a thousand events to twenty subscriptions is twenty thousand deliveries:
 * handed over at once, the last of them would wait seconds behind the first. Each part is sent and then stored with
 * its first attempts (unstored-part.ts). At most OPEN_PARTS are sent at once, so the dispatcher has the next part
 * before the last answers of the previous one come back, and the fan-out holds two parts in memory, not the batch
 * (20,000 records were 12 MB alive in a backlog's drain).
 */
const PART = 1_000;
const OPEN_PARTS = 2;

/**
 * Turns a batch of events into one delivery per active subscription of the event's organization that subscribed
 * to its kind: one read of the subscriptions per batch, then per PART deliveries one read of those already stored
 * (a re-read event adds and sends none), the part handed to `queue` (the worker), which sends it at once, and one
 * insert of the part with its first attempts. New deliveries are leased to this replica; one stored before its
 * attempt was answered is recorded later like any other, and if this replica dies, its lease expires and any
 * replica picks it up. Resolves once every delivery of the batch is stored (the batch's offset is committed then).
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
  const stores: Promise<void>[] = [];
  /** The parts handed over and not closed yet. */
  const open: Promise<void>[] = [];
  const send = async (records: DeliveryRecord[]) => {
    const [fresh] = await Promise.all([deps.deliveries.notStored(records), open.length >= OPEN_PARTS ? open.shift() : undefined]);
    if (fresh.length === 0) return;
    const part = new UnstoredPart(fresh, {
      store: (rows) => deps.deliveries.insertNew(rows),
      leaseMs: deps.settings.leaseMs,
      now: deps.now,
    });
    stores.push(part.stored);
    open.push(part.closed);
    queue(fresh.map((delivery) => ({ delivery, webhook: webhookOf.get(delivery.webhook_id), part })));
  };
  const sendAll = async () => {
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
        if (part.length === PART) {
          await send(part);
          part = [];
        }
      }
    }
    if (part.length > 0) await send(part);
  };
  let failure: unknown = null;
  await sendAll().catch((error: unknown) => (failure = error));
  // Every part settles before the batch does, stored or failed: a retry of the batch never runs beside it.
  for (const result of await Promise.allSettled(stores)) if (result.status === 'rejected') failure ??= result.reason;
  if (failure !== null) throw failure;
}
