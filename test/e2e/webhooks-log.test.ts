import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { listAll } from '@crm/client';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver';

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function setup(events: string[] = ['contact.created', 'contact.updated', 'contact.tag.added']) {
  const org = await createTestOrg();
  const receiver = await startReceiver();
  receivers.push(receiver);
  const created = await org.raw.post('/v1/webhooks', { name: 'log', url: receiver.url, events });
  expect(created.status, created.text).toBe(201);
  return { org, receiver, webhook: created.body.data as { id: string; secret: string } };
}

const log = async (org: TestOrg, webhookId: string, query = '') => (await org.raw.get(`/v1/webhooks/${webhookId}/deliveries${query}`)).body;

describe('delivery log, test and redelivery', () => {
  it('lists deliveries newest first with filters, a clamped limit of 200 and cursors', async () => {
    const { org, receiver, webhook } = await setup();
    const contact = (await org.client.POST('/v1/contacts', { body: { name: 'Logged' } })).data!.data;
    await org.client.PATCH('/v1/contacts/{id}', { params: { path: { id: contact.id } }, body: { name: 'Logged Again' } });
    await org.client.POST('/v1/contacts/{id}/tags', { params: { path: { id: contact.id } }, body: { tags: ['vip'] } });
    await receiver.waitFor((all) => all.length >= 3);
    const all = await eventually(async () => {
      const body = await log(org, webhook.id, '?limit=200');
      return body.data.length >= 3 && body.data.every((row: any) => row.status === 'succeeded') ? body : undefined;
    });
    expect(all.meta.total).toBe(3);
    const times = all.data.map((row: any) => row.created_at);
    expect([...times].sort().reverse()).toEqual(times);

    expect((await log(org, webhook.id, '?event_type=contact.updated')).data.map((row: any) => row.event_type)).toEqual(['contact.updated']);
    expect((await log(org, webhook.id, '?status=failed')).data).toHaveLength(0);
    expect(
      (await log(org, webhook.id, `?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).data,
    ).toHaveLength(0);
    expect(
      (await listAll(org.client, '/v1/webhooks/{id}/deliveries', { path: { id: webhook.id }, query: { limit: 1 } })).map((row) => row.id),
    ).toEqual(all.data.map((row: any) => row.id));
    expect((await org.raw.get(`/v1/webhooks/${webhook.id}/deliveries?status=sent`)).status).toBe(422);
    expect(
      (await org.client.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id: webhook.id }, query: { limit: 0 } } })).response.status,
    ).toBe(422);
  });

  it('sends a realistic, signed example event within the test call', async () => {
    const { org, receiver, webhook } = await setup(['deal.stage.changed', 'contact.created']);
    const response = await org.client.POST('/v1/webhooks/{id}/test', { params: { path: { id: webhook.id } } });
    expect(response.response.status, JSON.stringify(response.error)).toBe(200);
    expect(response.data!.data).toMatchObject({
      webhook_id: webhook.id,
      event_type: 'deal.stage.changed',
      status: 'succeeded',
      is_test: true,
      attempt: 1,
      response_status: 200,
    });
    // Made within the call: the receiver already has it.
    expect(receiver.received).toHaveLength(1);
    const request = receiver.received[0]!;
    expect(request.event.id).toBe(response.data!.data.event_id);
    expect(request.event.data).toMatchObject({
      object: { id: expect.stringMatching(/^dl_/), stage: { id: expect.any(String), name: expect.any(String) } },
      previous: { stage: expect.any(Object) },
    });
    const timestamp = String(request.headers['x-webhook-timestamp']);
    expect(request.headers['x-webhook-signature']).toBe(
      `sha256=${createHmac('sha256', webhook.secret).update(`${timestamp}.${request.body}`).digest('hex')}`,
    );
    expect(() => new StandardWebhook(webhook.secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();

    const tag = await org.client.POST('/v1/webhooks/{id}/test', {
      params: { path: { id: webhook.id } },
      body: { event_type: 'contact.tag.added' },
    });
    expect(tag.data!.data.event_type).toBe('contact.tag.added');
    expect(receiver.received[1]!.event.data).toEqual({
      contact: { id: expect.stringMatching(/^ct_/), name: expect.any(String) },
      tag: expect.any(String),
    });
    expect((await org.raw.post(`/v1/webhooks/${webhook.id}/test`, { event_type: 'nope' })).status).toBe(422);
  });

  it('reports a failed test without retrying it or touching the monitoring fields', async () => {
    const { org, receiver, webhook } = await setup();
    receiver.answerWith({ status: 500, body: 'down for maintenance' });
    const response = await org.client.POST('/v1/webhooks/{id}/test', { params: { path: { id: webhook.id } }, body: {} });
    expect(response.data!.data).toMatchObject({
      status: 'failed',
      error: 'http_500',
      response_status: 500,
      response_excerpt: 'down for maintenance',
      next_retry_at: null,
    });
    expect((await org.client.GET('/v1/webhooks/{id}', { params: { path: { id: webhook.id } } })).data!.data).toMatchObject({
      consecutive_failures: 0,
      last_failure_at: null,
    });
  });

  it('redelivers the same event (same id and body), also while the subscription is paused', async () => {
    const { org, receiver, webhook } = await setup();
    await org.client.POST('/v1/contacts', { body: { name: 'Redelivered' } });
    const [first] = await receiver.waitFor((all) => all.length >= 1);
    const original = await eventually(async () => (await log(org, webhook.id)).data.find((row: any) => row.status === 'succeeded'));
    await org.client.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { status: 'paused' } });

    const response = await org.client.POST('/v1/webhooks/deliveries/{deliveryId}/redeliver', {
      params: { path: { deliveryId: original.id } },
    });
    expect(response.response.status, JSON.stringify(response.error)).toBe(200);
    expect(response.data!.data).toMatchObject({ event_id: original.event_id, redelivery_of: original.id, status: 'succeeded', attempt: 1 });
    expect(response.data!.data.id).not.toBe(original.id);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.event.id).toBe(first!.event.id);
    expect(receiver.received[1]!.body).toBe(first!.body);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(first!.event.id);

    const detail = (await org.raw.get(`/v1/webhooks/deliveries/${response.data!.data.id}`)).body.data;
    expect(detail.request_body).toBe(first!.body);
    expect((await log(org, webhook.id)).meta.total).toBe(2);
  });
});
