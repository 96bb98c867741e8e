import { afterAll, describe, expect, it } from 'vitest';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { standardVerifies, xSignatureMatches } from '../support/signatures';
import { testSystem } from '../support/system';
import { eventually, sleep, startReceiver, type Receiver } from '../support/webhook-receiver';

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function subscribe(org: TestOrg, events: string[] = ['contact.created'], initial?: Parameters<typeof startReceiver>[0]) {
  const receiver = await startReceiver(initial);
  receivers.push(receiver);
  const created = await org.raw.post('/v1/webhooks', { name: 'e2e', url: receiver.url, events });
  expect(created.status, created.text).toBe(201);
  return { receiver, webhook: created.body.data as { id: string; secret: string } };
}

const createContact = async (org: TestOrg, name = 'Webhook Person') => {
  const response = await org.client.POST('/v1/contacts', { body: { name } });
  expect(response.response.status, JSON.stringify(response.error)).toBe(201);
  return response.data!.data as { id: string };
};

const deliveriesOf = async (org: TestOrg, webhookId: string, query = '') => {
  const response = await org.raw.get(`/v1/webhooks/${webhookId}/deliveries?limit=200${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body.data as any[];
};

describe('webhook delivery', () => {
  it('delivers a signed contact.created within a second of the write; both signature schemes verify over the raw bytes', async () => {
    const org = await createTestOrg();
    const { receiver, webhook } = await subscribe(org);
    const writtenAt = Date.now();
    const contact = await createContact(org);
    const [request] = await receiver.waitFor((all) => all.length >= 1, 5_000);
    expect(request!.receivedAt - writtenAt).toBeLessThan(1_000);

    expect(request!.event).toMatchObject({
      type: 'contact.created',
      api_version: 'v1',
      data: { object: { id: contact.id, name: 'Webhook Person' } },
    });
    expect(request!.event.id).toMatch(/^evt_/);
    expect(JSON.parse(request!.body)).not.toHaveProperty('org_id');
    expect(Object.keys(JSON.parse(request!.body))).toEqual(['id', 'type', 'created_at', 'api_version', 'data']);
    expect(request!.headers['x-webhook-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(request!.headers['webhook-id']).toBe(request!.event.id);
    expect(xSignatureMatches(request!, webhook.secret)).toBe(true);
    expect(standardVerifies(request!, webhook.secret)).toBe(true);
    // One changed byte breaks both: the signature covers the raw bytes, not re-serialized JSON.
    const tampered = { ...request!, body: request!.body.replace('Webhook Person', 'Webhook Persom') };
    expect(xSignatureMatches(tampered, webhook.secret)).toBe(false);
    expect(standardVerifies(tampered, webhook.secret)).toBe(false);

    const [delivery] = await eventually(async () => {
      const rows = await deliveriesOf(org, webhook.id);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    });
    expect(delivery).toMatchObject({
      webhook_id: webhook.id,
      event_id: request!.event.id,
      event_type: 'contact.created',
      attempt: 1,
      response_status: 200,
      error: null,
      is_test: false,
    });
    const detail = await org.client.GET('/v1/webhooks/deliveries/{deliveryId}', { params: { path: { deliveryId: delivery.id } } });
    expect(detail.data!.data.request_body).toBe(request!.body);
    expect(detail.data!.data.request_headers['X-Webhook-Signature']).toBe(request!.headers['x-webhook-signature']);
  });

  it('retries a receiver that fails N times and delivers on attempt N+1, with every attempt in the log', async () => {
    const org = await createTestOrg();
    const failures = 2;
    const { receiver, webhook } = await subscribe(org);
    receiver.script([
      { status: 500, body: 'boom' },
      { status: 503, headers: { 'retry-after': '0' } },
    ]);
    await createContact(org);
    const all = await receiver.waitFor((requests) => requests.length >= failures + 1);
    expect(new Set(all.map((request) => request.event.id)).size).toBe(1);
    expect(all.map((request) => request.answered)).toEqual([500, 503, 200]);
    // A fresh timestamp and signature at every attempt.
    expect(all.every((request) => xSignatureMatches(request, webhook.secret))).toBe(true);

    const delivery = await eventually(async () => (await deliveriesOf(org, webhook.id)).find((row) => row.status === 'succeeded'));
    expect(delivery.attempt).toBe(failures + 1);
    expect(delivery.attempts.map((attempt: any) => [attempt.attempt, attempt.response_status, attempt.error])).toEqual([
      [1, 500, 'http_500'],
      [2, 503, 'http_503'],
      [3, 200, null],
    ]);
    expect(delivery.attempts[0].response_excerpt).toBe('boom');
    const subscription = (await org.client.GET('/v1/webhooks/{id}', { params: { path: { id: webhook.id } } })).data!.data;
    expect(subscription).toMatchObject({ status: 'active', consecutive_failures: 0, last_failure_reason: 'http_503' });
    expect(subscription.last_delivery_at).not.toBeNull();
  });

  const attempts = testSystem().env.WEBHOOK_RETRY_SCHEDULE_MS!.split(',').length;
  const threshold = Number(testSystem().env.WEBHOOK_PAUSE_AFTER_FAILURES);

  // Only observable when one event's attempts cannot reach the pause threshold (the test setup makes sure of it).
  it.runIf(threshold > attempts)('fails a delivery after the last attempt of the schedule', async () => {
    const org = await createTestOrg();
    const { receiver, webhook } = await subscribe(org, ['contact.created'], { status: 500 });
    await createContact(org);
    const delivery = await eventually(async () => (await deliveriesOf(org, webhook.id)).find((row) => row.status === 'failed'));
    expect(delivery).toMatchObject({ attempt: attempts, error: 'http_500', next_retry_at: null });
    expect(receiver.received).toHaveLength(attempts);
  });

  it('times a slow receiver out at the configured timeout and records a timeout', async () => {
    const org = await createTestOrg();
    const timeoutMs = Number(testSystem().env.WEBHOOK_TIMEOUT_MS);
    const { receiver, webhook } = await subscribe(org);
    receiver.script([{ status: 200, delayMs: timeoutMs + 1_000 }]);
    await createContact(org);
    const delivery = await eventually(async () => (await deliveriesOf(org, webhook.id)).find((row) => row.status === 'succeeded'), 15_000);
    expect(delivery.attempts[0]).toMatchObject({ error: 'timeout', response_status: null });
    expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(delivery.attempts[0].duration_ms).toBeLessThan(timeoutMs + 900);
    expect(receiver.received.length).toBeGreaterThanOrEqual(2);
  });

  it('pauses after the configured consecutive failures, delivers nothing while paused, and resumes on reactivation', async () => {
    const org = await createTestOrg();
    const { receiver, webhook } = await subscribe(org, ['contact.created', 'contact.updated'], { status: 500 });
    // Enough failing events to reach the threshold, whatever the configured count.
    const failing = Math.ceil(threshold / attempts);
    const first = await createContact(org, 'Before Pause');
    for (let i = 1; i < failing; i++) await createContact(org, `Before Pause ${i}`);
    const paused = await eventually(async () => {
      const data = (await org.client.GET('/v1/webhooks/{id}', { params: { path: { id: webhook.id } } })).data!.data;
      return data.status === 'paused' ? data : undefined;
    }, 15_000);
    // Attempts already in flight when it paused may still count.
    expect(paused.consecutive_failures).toBeGreaterThanOrEqual(threshold);
    expect(paused.last_failure_reason).toBe('http_500');
    expect(paused.last_failure_at).not.toBeNull();
    await sleep(300);
    const seenAtPause = receiver.received.length;
    expect(seenAtPause).toBeLessThan(failing * attempts);

    // While paused: neither the held retry nor new events are sent.
    receiver.answerWith({ status: 200 });
    await org.client.PATCH('/v1/contacts/{id}', { params: { path: { id: first.id } }, body: { name: 'During Pause' } });
    await sleep(1_500);
    expect(receiver.received.length).toBe(seenAtPause);

    const reactivated = await org.client.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { status: 'active' } });
    expect(reactivated.data!.data).toMatchObject({ status: 'active', consecutive_failures: 0 });
    // The held retry of the first event goes out again.
    await receiver.waitFor((all) =>
      all.slice(seenAtPause).some((request) => request.event.data.object.id === first.id && request.answered === 200),
    );
    await createContact(org, 'After Pause');
    await receiver.waitFor((all) => all.some((request) => request.event.data?.object?.name === 'After Pause'));
    expect(receiver.received.some((request) => request.event.type === 'contact.updated')).toBe(false);
  });

  it('pauses at once on 410 Gone', async () => {
    const org = await createTestOrg();
    const { webhook } = await subscribe(org, ['contact.created'], { status: 410 });
    await createContact(org);
    const data = await eventually(async () => {
      const current = (await org.client.GET('/v1/webhooks/{id}', { params: { path: { id: webhook.id } } })).data!.data;
      return current.status === 'paused' ? current : undefined;
    });
    expect(data.consecutive_failures).toBe(1);
    const [delivery] = await deliveriesOf(org, webhook.id);
    expect(delivery).toMatchObject({ status: 'failed', attempt: 1, error: 'http_410' });
  });

  it('signs with both secrets during a rotation overlap, and with the new one only when the overlap is 0', async () => {
    const org = await createTestOrg();
    const { receiver, webhook } = await subscribe(org);
    const rotated = await org.client.POST('/v1/webhooks/{id}/rotate-secret', {
      params: { path: { id: webhook.id } },
      body: { overlap_hours: 1 },
    });
    expect(rotated.response.status, JSON.stringify(rotated.error)).toBe(200);
    const newSecret = rotated.data!.data.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(webhook.secret);
    expect(rotated.data!.data.previous_secret_expires_at).not.toBeNull();
    expect((await org.raw.get(`/v1/webhooks/${webhook.id}`)).body.data.secret).toBeUndefined();

    await createContact(org);
    const [during] = await receiver.waitFor((all) => all.length >= 1);
    expect(String(during!.headers['x-webhook-signature']).split(',')).toHaveLength(2);
    for (const secret of [newSecret, webhook.secret]) {
      expect(xSignatureMatches(during!, secret)).toBe(true);
      expect(standardVerifies(during!, secret)).toBe(true);
    }

    const again = await org.client.POST('/v1/webhooks/{id}/rotate-secret', {
      params: { path: { id: webhook.id } },
      body: { overlap_hours: 0 },
    });
    const latest = again.data!.data.secret as string;
    await createContact(org, 'After Second Rotation');
    const after = (await receiver.waitFor((all) => all.length >= 2))[1]!;
    expect(xSignatureMatches(after, latest)).toBe(true);
    expect(standardVerifies(after, latest)).toBe(true);
    expect(xSignatureMatches(after, newSecret)).toBe(false);
    expect(standardVerifies(after, webhook.secret)).toBe(false);
  });
});
