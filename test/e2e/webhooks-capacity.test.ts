import { afterAll, describe, expect, it } from 'vitest';
import { createTestOrg } from '../support/orgs';
import { testSystem } from '../support/system';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

/**
 * Issue 22 finding 2: test sends and redeliveries hold a gateway request open, so they wait less than a delivery
 * and one organization may hold only a few at once; and an organization's subscriptions are capped.
 */
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

const setting = (name: string): number => Number(testSystem().env[name]);

describe('webhook capacity per organization', () => {
  it('bounds a test send by the short manual timeout, not the delivery timeout', async () => {
    const org = await createTestOrg();
    const receiver = await startReceiver({ status: 200, hold: true });
    receivers.push(receiver);
    const webhook = (await org.raw.post('/v1/webhooks', { name: 'slow', url: receiver.url, events: ['contact.created'] })).body.data;

    const tested = await org.raw.post(`/v1/webhooks/${webhook.id}/test`, {});
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body.data).toMatchObject({ is_test: true, status: 'failed', error: 'timeout' });
    expect(tested.body.data.duration_ms).toBeGreaterThanOrEqual(setting('WEBHOOK_MANUAL_TIMEOUT_MS'));
    expect(tested.body.data.duration_ms).toBeLessThan(setting('WEBHOOK_TIMEOUT_MS'));
  });

  it('refuses test sends beyond the per-organization cap with 429 RATE_LIMITED and Retry-After, and not another organization', async () => {
    const [org, neighbour] = [await createTestOrg(), await createTestOrg()];
    const receiver = await startReceiver({ status: 200, hold: true });
    receivers.push(receiver);
    const url = receiver.url;
    const webhook = (await org.raw.post('/v1/webhooks', { name: 'held', url, events: ['contact.created'] })).body.data;
    const theirs = (await neighbour.raw.post('/v1/webhooks', { name: 'held', url, events: ['contact.created'] })).body.data;

    // The cap holds per webhooks replica; the test system runs two.
    const admitted = setting('WEBHOOK_MANUAL_CONCURRENCY') * 2;
    const burst = await Promise.all(Array.from({ length: admitted + 4 }, () => org.raw.post(`/v1/webhooks/${webhook.id}/test`, {})));
    const refused = burst.filter((answer) => answer.status === 429);
    expect(burst.filter((answer) => answer.status === 200).length).toBeLessThanOrEqual(admitted);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    expect(refused[0]!.body.error).toMatchObject({ type: 'rate_limited', code: 'RATE_LIMITED' });
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // Nothing was stored for the refused ones; the neighbour and the organization itself afterwards are served.
    const log = await org.raw.get(`/v1/webhooks/${webhook.id}/deliveries?limit=100`);
    expect(log.body.data).toHaveLength(burst.length - refused.length);
    expect((await neighbour.raw.post(`/v1/webhooks/${theirs.id}/test`, {})).status).toBe(200);
    expect((await org.raw.post(`/v1/webhooks/${webhook.id}/test`, {})).status).toBe(200);
  });

  it('caps the subscriptions of an organization with WEBHOOK_LIMIT_EXCEEDED', async () => {
    const org = await createTestOrg();
    const limit = setting('WEBHOOK_MAX_SUBSCRIPTIONS');
    const body = (i: number) => ({ name: `sub ${i}`, url: `https://hooks.example.com/${i}`, events: ['contact.created'] });
    const ids: string[] = [];
    for (let i = 0; i < limit; i++) {
      const created = await org.raw.post('/v1/webhooks', body(i));
      expect(created.status, created.text).toBe(201);
      ids.push(created.body.data.id);
    }
    const over = await org.raw.post('/v1/webhooks', body(limit));
    expect(over.status).toBe(422);
    expect(over.body.error).toMatchObject({ type: 'unprocessable', code: 'WEBHOOK_LIMIT_EXCEEDED', details: { limit } });
    expect((await org.raw.get('/v1/webhooks')).body.meta.total).toBe(limit);

    const other = await createTestOrg();
    expect((await other.raw.post('/v1/webhooks', body(0))).status).toBe(201);
    expect((await org.raw.delete(`/v1/webhooks/${ids[0]}`)).status).toBe(204);
    expect((await org.raw.post('/v1/webhooks', body(limit))).status).toBe(201);
  });
});
