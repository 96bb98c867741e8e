import { newId, RecordStore, type Storage } from '@crm/shared';
import { describe, expect, it, vi } from 'vitest';
import { useDatabase } from '../../../../test/support/integration';
import { deliveryRecord, webhookRecord, webhookTestDeps } from '../../../../test/support/webhook-records';
import type { WebhookDeps } from '../domain/deps';
import { attemptLogId } from './attempt-log';
import type { AttemptWrite } from './delivery-queue';
import type { DeliveryRecord, DeliveryStatus } from './delivery.repository';

/** The write the recorder makes of an attempt numbered `attemptsBefore + 1` with this outcome. */
function attemptWrite(
  delivery: DeliveryRecord,
  attemptsBefore: number,
  outcome: { status: DeliveryStatus; response_status: number; error?: string; duration_ms?: number; next_attempt_at?: Date },
): AttemptWrite {
  const attempted_at = new Date(Math.floor(Date.now() / 1000) * 1000);
  const attempt = {
    attempt: attemptsBefore + 1,
    attempted_at,
    response_status: outcome.response_status,
    error: outcome.error ?? null,
    duration_ms: outcome.duration_ms ?? 5,
    response_excerpt: null,
  };
  return {
    id: delivery.id,
    attemptsBefore,
    status: outcome.status,
    next_attempt_at: outcome.next_attempt_at ?? null,
    entry: {
      ...attempt,
      id: attemptLogId(delivery.id, attempt),
      delivery_id: delivery.id,
      org_id: delivery.org_id,
      webhook_id: delivery.webhook_id,
      request_headers: { 'x-attempt': String(attempt.attempt) },
      completed_at: outcome.status === 'pending' ? null : attempted_at,
      expires_at: delivery.expires_at,
    },
  };
}

const attemptOf = ({ entry }: AttemptWrite) => ({
  attempt: entry.attempt,
  attempted_at: entry.attempted_at,
  response_status: entry.response_status,
  error: entry.error,
  duration_ms: entry.duration_ms,
  response_excerpt: entry.response_excerpt,
});

describe('webhook and delivery repositories', () => {
  let storage: Storage;
  let deps: WebhookDeps;
  useDatabase('webhooks', (opened) => {
    storage = opened;
    deps = webhookTestDeps(storage);
  });

  it('stores signing secrets sealed and answers them in plaintext', async () => {
    const orgId = newId('organization');
    const webhook = webhookRecord(orgId);
    await deps.webhooks.insert(webhook);
    const raw = await storage.connection.collection('webhooks').findOne({ _id: webhook.id as never });
    expect(raw?.secret).not.toContain('plain-secret-value');
    expect(await deps.webhooks.getById(orgId, webhook.id)).toMatchObject({ secret: webhook.secret });
    const rotated = await deps.webhooks.update(orgId, webhook.id, { secret: 'whsec_new', previous_secret: webhook.secret });
    expect(rotated).toMatchObject({ secret: 'whsec_new', previous_secret: webhook.secret });
    expect(await deps.webhooks.getById(newId('organization'), webhook.id)).toBeNull();
  });

  it('counts every one of concurrent failures, and pauses an active subscription once', async () => {
    const orgId = newId('organization');
    const webhook = webhookRecord(orgId);
    await deps.webhooks.insert(webhook);
    const failure = {
      orgId,
      id: webhook.id,
      reset: false,
      failures: 1,
      lastSuccessAt: null,
      lastFailureAt: new Date(),
      lastFailureReason: 'timeout',
    };
    await Promise.all(Array.from({ length: 7 }, () => deps.webhooks.applyHealth([failure])));
    expect((await deps.webhooks.getById(orgId, webhook.id))?.consecutive_failures).toBe(7);
    const pauses = await Promise.all([1, 2].map(() => deps.webhooks.pauseIfActive(orgId, webhook.id, new Date(), 'consecutive_failures')));
    expect(pauses.filter(Boolean)).toHaveLength(1);
    expect(await deps.webhooks.listActive([orgId])).toEqual([]);
  });

  it('stores a delivery once per event, and leases a due delivery to exactly one of 3 concurrent workers', async () => {
    const orgId = newId('organization');
    const webhookId = newId('webhook');
    const delivery = deliveryRecord(orgId, webhookId);
    expect(await deps.deliveries.insertNew([delivery])).toEqual([delivery]);
    expect(await deps.deliveries.insertNew([{ ...delivery, id: newId('delivery') }])).toEqual([]);
    const now = new Date();
    const claims = await Promise.all(['w1', 'w2', 'w3'].map((owner) => deps.deliveries.claimDue(now, 10, 30_000, owner, [])));
    const holders = claims.filter((claimed) => claimed.some((record) => record.id === delivery.id));
    expect(holders).toHaveLength(1);
    const owner = holders[0]!.find((record) => record.id === delivery.id)!.lease_owner!;
    const write = attemptWrite(delivery, 0, { status: 'succeeded', response_status: 200 });
    expect(await deps.deliveries.recordAttempts('someone-else', [write])).toBe(0);
    expect(await deps.deliveries.recordAttempts(owner, [write])).toBe(1);
    expect(await deps.deliveries.recordAttempts(owner, [write])).toBe(0);
    expect(await deps.deliveries.getById(orgId, delivery.id)).toMatchObject({
      status: 'succeeded',
      attempt: 1,
      attempts: [attemptOf(write)],
      response_status: 200,
      lease_owner: null,
    });
  });

  it('records a batch of attempts in groups, and shows each delivery with its own attempts and latest outcome', async () => {
    const orgId = newId('organization');
    const webhookId = newId('webhook');
    const lease = { lease_owner: 'w1', lease_until: new Date(Date.now() + 60_000) };
    const [first, second, retried, stale] = [0, 0, 1, 1].map((attempt) => deliveryRecord(orgId, webhookId, { attempt, ...lease }));
    // Recorded before the attempt log existed: its attempts are in the delivery itself.
    const legacyAttempt = {
      attempt: 1,
      attempted_at: new Date(),
      response_status: 500,
      error: 'http_500',
      duration_ms: 9,
      response_excerpt: 'no',
    };
    const legacy = deliveryRecord(orgId, webhookId, { attempt: 1, attempts: [legacyAttempt], ...lease });
    await deps.deliveries.insertNew([first!, second!, retried!, stale!, legacy]);
    const retryAt = new Date(Date.now() + 300_000);
    const writes = [
      attemptWrite(first!, 0, { status: 'succeeded', response_status: 200, duration_ms: 4 }),
      attemptWrite(second!, 0, { status: 'succeeded', response_status: 204, duration_ms: 6 }),
      attemptWrite(retried!, 1, { status: 'pending', response_status: 503, error: 'http_503', next_attempt_at: retryAt }),
      attemptWrite(legacy, 1, { status: 'failed', response_status: 410, error: 'http_410' }),
      // Its lease was taken over and the other replica's second attempt already recorded: not stored here.
      attemptWrite(stale!, 0, { status: 'succeeded', response_status: 200 }),
    ];
    expect(await deps.deliveries.recordAttempts('w1', writes)).toBe(4);
    // An entry that names the delivery under another organization is never joined to it.
    const { id: _, ...foreign } = { ...writes[0]!.entry, org_id: newId('organization'), response_status: 599 };
    await storage.connection.collection('delivery_attempts').insertOne({ ...foreign, _id: `${first!.id}:foreign` as never });

    const page = await deps.deliveries.list(orgId, webhookId, { limit: 10, after: undefined });
    const byId = new Map(page.items.map((record) => [record.id, record]));
    expect(byId.get(first!.id)).toMatchObject({ status: 'succeeded', attempt: 1, response_status: 200, duration_ms: 4, lease_owner: null });
    expect(byId.get(first!.id)?.attempts).toEqual([attemptOf(writes[0]!)]);
    expect(byId.get(second!.id)).toMatchObject({ status: 'succeeded', attempt: 1, response_status: 204, duration_ms: 6 });
    expect(byId.get(second!.id)?.attempts).toEqual([attemptOf(writes[1]!)]);
    expect(byId.get(retried!.id)).toMatchObject({ status: 'pending', attempt: 2, error: 'http_503', next_attempt_at: retryAt });
    expect(byId.get(legacy.id)?.attempts).toEqual([legacyAttempt, attemptOf(writes[3]!)]);
    expect(byId.get(legacy.id)).toMatchObject({
      status: 'failed',
      attempt: 2,
      response_status: 410,
      completed_at: writes[3]!.entry.completed_at,
    });
    expect(byId.get(stale!.id)).toMatchObject({ status: 'pending', attempt: 1, lease_owner: 'w1' });

    await deps.deliveries.deleteForWebhook(orgId, webhookId);
    expect(await storage.connection.collection('delivery_attempts').countDocuments({ org_id: orgId, webhook_id: webhookId })).toBe(0);
    // Another organization's entries are not its to delete.
    expect(await storage.connection.collection('delivery_attempts').countDocuments({ _id: `${first!.id}:foreign` as never })).toBe(1);
  });

  it("counts a replay's deliveries while they finish: each is counted once, none missed between two counts", async () => {
    const [orgId, webhookId, replayId] = [newId('organization'), newId('webhook'), newId('replay')];
    const records = Array.from({ length: 7 }, (_, index) =>
      deliveryRecord(orgId, webhookId, { dedup_key: `replay:${replayId}:${index}`, status: index < 2 ? 'succeeded' : 'pending' }),
    );
    await deps.deliveries.insertNew(records);
    // The worker finishes the 5 pending deliveries while the counts run: after any other count was answered, just
    // before the pending ones are counted.
    const count = RecordStore.prototype.count;
    const spy = vi.spyOn(RecordStore.prototype, 'count').mockImplementation(async function (this: RecordStore<{ id: string }>, filter) {
      if ((filter as { status?: string }).status === 'pending') {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await storage.connection
          .collection('deliveries')
          .updateMany({ dedup_key: { $regex: `^replay:${replayId}:` } }, { $set: { status: 'succeeded' } });
      }
      return count.call(this, filter);
    });
    try {
      const counts = await deps.deliveries.replayCounts(orgId, webhookId, replayId);
      expect(counts.pending + counts.succeeded + counts.failed).toBe(7);
    } finally {
      spy.mockRestore();
    }
  });

  it('holds the due attempts of a paused subscription and resumes them, and knows when the worker must wake', async () => {
    const orgId = newId('organization');
    const webhookId = newId('webhook');
    const later = new Date(Date.now() + 60_000);
    const delivery = deliveryRecord(orgId, webhookId, { next_attempt_at: later });
    await deps.deliveries.insertNew([delivery]);
    expect((await deps.deliveries.nextWakeAt([]))?.getTime()).toBeLessThanOrEqual(later.getTime());
    await storage.connection.collection('deliveries').updateOne({ _id: delivery.id as never }, { $set: { lease_owner: 'w1' } });
    await deps.deliveries.hold([delivery.id], 'w1');
    expect((await deps.deliveries.getById(orgId, delivery.id))?.next_attempt_at).toBeNull();
    expect(await deps.deliveries.resumeHeld(orgId, webhookId, new Date())).toBe(1);
    const page = await deps.deliveries.list(orgId, webhookId, { limit: 5, after: undefined, status: 'pending' });
    expect(page.items.map((record) => record.id)).toEqual([delivery.id]);
    expect((await deps.deliveries.backlogOf(orgId, [webhookId])).get(webhookId)).toMatchObject({ orgId, pending: 1 });
  });
});
