import { newId, type ConsumedEvent, type Storage } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { useDatabase } from '../../../../test/support/integration';
import { sendResult, webhookRecord, webhookTestDeps } from '../../../../test/support/webhook-records';
import { planAttemptOutcome } from './attempt-outcome';
import type { AttemptResult } from './attempt-result';
import type { LeasedDelivery, WebhookDeps } from './deps';
import { fanOut } from './fan-out';

const contactCreated = (orgId: string): ConsumedEvent => ({
  event: {
    id: newId('event'),
    type: 'contact.created',
    org_id: orgId,
    created_at: new Date().toISOString(),
    api_version: 'v1',
    data: { object: { id: newId('contact'), name: 'Ada' } },
  } as ConsumedEvent['event'],
  trace: {},
  offset: '0',
});

/** What the dispatcher makes of a first attempt answered with `statusCode`. */
function answered({ delivery, webhook }: LeasedDelivery, statusCode: number): AttemptResult {
  const at = new Date();
  const result = sendResult(statusCode, { durationMs: 7, responseExcerpt: 'thanks' });
  const outcome = planAttemptOutcome({ attempt: 1, result, startedAt: at, scheduleMs: [0, 60_000], retries: true, now: at });
  return { delivery, webhook: webhook!, trigger: 'event', headers: { 'webhook-id': delivery.id }, result, outcome, at };
}

describe('fan-out: deliveries sent before they are stored (real store)', () => {
  let storage: Storage;
  let deps: WebhookDeps;
  useDatabase('webhooks', (opened) => {
    storage = opened;
    deps = webhookTestDeps(storage);
  });

  async function subscribed(orgId: string, count: number) {
    const webhooks = Array.from({ length: count }, () => webhookRecord(orgId));
    for (const webhook of webhooks) await deps.webhooks.insert(webhook);
    return webhooks;
  }

  it('stores each delivery once with its first attempt, shows it as the API does, and sends a re-read batch no more', async () => {
    const orgId = newId('organization');
    const [first] = await subscribed(orgId, 2);
    const events = [contactCreated(orgId), contactCreated(orgId), contactCreated(orgId)];
    const handed: LeasedDelivery[] = [];
    // The dispatcher's part: every first attempt answered at once, the first subscription's with 200, the other's 503.
    const answerAll = (leased: LeasedDelivery[]) => {
      for (const one of leased) {
        handed.push(one);
        expect(one.part?.take(answered(one, one.delivery.webhook_id === first!.id ? 200 : 503))).toBe(true);
      }
    };
    await fanOut(deps, events, answerAll);
    expect(handed).toHaveLength(6);

    const page = await deps.deliveries.list(orgId, first!.id, { limit: 10, after: undefined });
    expect(page.items).toHaveLength(3);
    for (const item of page.items)
      expect(item).toMatchObject({
        status: 'succeeded',
        attempt: 1,
        response_status: 200,
        response_excerpt: 'thanks',
        lease_owner: null,
        request_headers: { 'webhook-id': item.id },
      });
    const retrying = (await storage.connection.collection('deliveries').find({ org_id: orgId, status: 'pending' }).toArray()).map(
      (raw) => ({ attempt: raw.attempt, due: raw.next_attempt_at as Date, lease: raw.lease_owner }),
    );
    expect(retrying).toHaveLength(3);
    for (const delivery of retrying) {
      expect(delivery).toMatchObject({ attempt: 1, lease: null });
      expect(delivery.due.getTime()).toBeGreaterThan(Date.now());
    }
    const one = await deps.deliveries.getById(orgId, page.items[0]!.id);
    expect(one?.attempts).toEqual([expect.objectContaining({ attempt: 1, response_status: 200, duration_ms: 7 })]);

    // The batch read again (a crash before its offset was committed): nothing is handed over, nothing is added.
    await fanOut(deps, events, (leased) => handed.push(...leased));
    expect(handed).toHaveLength(6);
    expect(await storage.connection.collection('deliveries').countDocuments({ org_id: orgId })).toBe(6);
  });

  it('stores a delivery still unanswered leased to this replica, then records its attempt like any other', async () => {
    const orgId = newId('organization');
    const [webhook] = await subscribed(orgId, 1);
    let slow: LeasedDelivery | undefined;
    // Its attempt starts (as the dispatcher says) and is not answered: the part is stored after a quiet spell.
    await fanOut(deps, [contactCreated(orgId)], ([leased]) => {
      slow = leased;
      leased?.part?.started();
    });
    const stored = await deps.deliveries.getById(orgId, slow!.delivery.id);
    expect(stored).toMatchObject({ status: 'pending', attempt: 0, attempts: [], lease_owner: deps.owner, webhook_id: webhook!.id });

    // The answer comes after the part was stored: the part no longer takes it, the recorder stores it.
    const attempt = answered(slow!, 200);
    expect(slow!.part?.take(attempt)).toBe(false);
    await deps.recorder.record(attempt);
    expect(await deps.deliveries.getById(orgId, slow!.delivery.id)).toMatchObject({
      status: 'succeeded',
      attempt: 1,
      lease_owner: null,
      attempts: [expect.objectContaining({ attempt: 1, response_status: 200 })],
    });
  });
});
