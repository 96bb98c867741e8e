import type { CrmClient } from '@crm/client';
import { rawListAll } from '../../support/api';
import type { ReceivedEvent } from '../../support/events';
import type { TestOrg } from '../../support/orgs';

/**
 * After a receiver answered 410 Gone the subscription is paused by design, and events raised while it is paused get
 * no delivery (fan-out skips paused subscriptions; svix does the same). The operator's recovery, done here: check the
 * pause, reactivate, and redeliver every failed delivery in the log. The ledger then owes the receiver every event
 * in the delivery log and every event raised outside the paused window; events inside it, absent from the log, are
 * exempt (reported, not lost).
 */
export async function recoverGoneSubscription(
  org: TestOrg,
  client: CrmClient,
  webhookId: string,
  goneFrom: number,
): Promise<{ paused: boolean; redelivered: number; exempt: (event: ReceivedEvent) => boolean }> {
  const path = { params: { path: { id: webhookId } } };
  const paused = (await client.GET('/v1/webhooks/{id}', path)).data?.data.status === 'paused';
  await client.PATCH('/v1/webhooks/{id}', { ...path, body: { status: 'active' } });
  const reactivatedAt = Date.now();
  const log = await rawListAll<{ id: string; event_id: string; status: string }>(org.raw, `/v1/webhooks/${webhookId}/deliveries`);
  const failed = log.filter((delivery) => delivery.status === 'failed');
  for (const delivery of failed)
    await client.POST('/v1/webhooks/deliveries/{deliveryId}/redeliver', { params: { path: { deliveryId: delivery.id } } });
  const logged = new Set(log.map((delivery) => delivery.event_id));
  const exempt = (event: ReceivedEvent) => {
    const raisedAt = Date.parse(event.created_at);
    // 2 s of slack before the first 410: an event raised just before may be fanned out after the pause.
    return !logged.has(event.id) && raisedAt >= goneFrom - 2_000 && raisedAt <= reactivatedAt;
  };
  return { paused, redelivered: failed.length, exempt };
}
