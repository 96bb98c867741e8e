import type { LeasedDelivery, WebhookDeps } from './deps';
import { newDelivery } from './event-body';

/** Events queued per page: one read of the event log, one bulk insert of deliveries, one update of the replay. */
const PAGE_SIZE = 200;

/**
 * Queues the events of one leased replay, page by page from its stored position, to its subscription: a delivery
 * per event the subscription receives (its current filter, narrowed by the replay's `types`), sent by the normal
 * delivery engine. A delivery's dedup key is `replay:<replay id>:<event id>`, so a page queued again after a crash
 * (before its position was stored) adds nothing: each replay delivers each event once, then at-least-once as any
 * delivery. Returns false when the lease was lost (another replica took the replay over).
 */
export async function queueReplay(deps: WebhookDeps, replay: NonNullable<Awaited<ReturnType<WebhookDeps['replays']['claimToQueue']>>>) {
  let cursor = replay.cursor;
  for (;;) {
    const webhook = await deps.webhooks.getById(replay.org_id, replay.webhook_id);
    const wanted = webhook ? webhook.events.filter((type) => replay.types.length === 0 || replay.types.includes(type)) : [];
    const page =
      wanted.length === 0
        ? []
        : await deps.events.replayPage(
            replay.org_id,
            { since: replay.since, until: replay.until, types: wanted, after: cursor },
            PAGE_SIZE,
          );
    const now = deps.now();
    const lease = { owner: deps.owner, until: new Date(now.getTime() + deps.settings.leaseMs) };
    const records = webhook
      ? page.map((event) => ({
          ...newDelivery({
            webhook,
            eventId: event.id,
            eventType: event.type,
            body: event.body,
            now,
            retentionMs: deps.settings.retentionMs,
            lease,
          }),
          dedup_key: `replay:${replay.id}:${event.id}`,
        }))
      : [];
    const inserted = await deps.deliveries.insertNew(records);
    const last = page.at(-1);
    if (last) cursor = { created_at: last.created_at, id: last.id };
    const done = page.length < PAGE_SIZE;
    const advanced = await deps.replays.advance(replay.id, deps.owner, {
      cursor,
      added: page.length,
      enqueued: done,
      leaseUntil: lease.until,
    });
    if (inserted.length > 0)
      deps.deliveriesQueued(inserted.map((delivery): LeasedDelivery => ({ delivery, webhook: webhook ?? undefined })));
    if (!advanced) return false;
    if (done) return true;
  }
}
