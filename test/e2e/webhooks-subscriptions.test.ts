import { afterAll, describe, expect, it } from 'vitest';
import { listAll } from '@crm/client';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { eventually, sleep, startReceiver, type Receiver } from '../support/webhook-receiver';

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiverFor(initial?: Parameters<typeof startReceiver>[0]) {
  const receiver = await startReceiver(initial);
  receivers.push(receiver);
  return receiver;
}

async function subscribe(org: TestOrg, url: string, events: string[] = ['contact.created']) {
  const created = await org.raw.post('/v1/webhooks', { name: 'subs', url, events });
  expect(created.status, created.text).toBe(201);
  return created.body.data as { id: string; secret: string; events: string[] };
}

describe('webhook subscriptions', () => {
  it('creates a subscription whose secret is shown only in the creation answer', async () => {
    const org = await createTestOrg();
    const receiver = await receiverFor();
    const created = await org.client.POST('/v1/webhooks', {
      body: {
        name: 'CRM sync',
        url: receiver.url,
        events: ['contact.created', 'deal.updated', 'contact.created'],
      },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    expect(created.data!.data).toMatchObject({
      name: 'CRM sync',
      url: receiver.url,
      events: ['contact.created', 'deal.updated'],
      status: 'active',
      consecutive_failures: 0,
      last_delivery_at: null,
      last_failure_at: null,
      last_failure_reason: null,
    });
    expect(created.data!.data.id).toMatch(/^wh_/);
    expect(created.data!.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const read = await org.raw.get(`/v1/webhooks/${created.data!.data.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('secret');
    const listed = await listAll(org.client, '/v1/webhooks');
    expect(listed.map((webhook) => webhook.id)).toEqual([created.data!.data.id]);
    expect(listed[0]).not.toHaveProperty('secret');
  });

  it('lists the 48 event kinds, 21 of them emitted by API writes, through the literal path', async () => {
    const org = await createTestOrg();
    const kinds = await listAll(org.client, '/v1/webhooks/event-types', { query: { limit: 10 } });
    expect(kinds).toHaveLength(48);
    expect(new Set(kinds.map((kind) => kind.type)).size).toBe(48);
    expect(kinds.filter((kind) => kind.api_write)).toHaveLength(21);
    expect(kinds.map((kind) => kind.type)).toEqual(
      expect.arrayContaining([
        'contact.created',
        'message.received',
        'message.edited',
        'channel.disconnected',
        'deal.pipeline.transferred',
      ]),
    );
    expect(kinds.find((kind) => kind.type === 'message.received')).toMatchObject({ api_write: false, description: expect.any(String) });
  });

  it('refuses unknown event kinds with the list of valid ones', async () => {
    const org = await createTestOrg();
    const response = await org.raw.post('/v1/webhooks', {
      name: 'x',
      url: 'https://hooks.example.com/in',
      events: ['contact.created', 'contact.exploded'],
    });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    const field = response.body.error.details.fields[0];
    expect(field.field).toBe('events.1');
    expect(field.allowed).toHaveLength(48);
    expect(field.allowed).toContain('contact.created');
    expect(
      (await org.client.POST('/v1/webhooks', { body: { name: 'x', url: 'https://hooks.example.com/in', events: [] } })).response.status,
    ).toBe(422);
  });

  it.each([
    ['https://10.0.0.5/hook', 'private'],
    ['http://169.254.169.254/latest/meta-data', 'https'],
    ['https://169.254.169.254/', 'link-local'],
    ['https://192.168.1.20:8443/hook', 'private'],
    ['https://[fd00::1]/hook', 'address'],
    ['https://metadata.google.internal/hook', 'metadata.google.internal'],
    ['ftp://hooks.example.com/in', 'scheme'],
    ['https://user:pass@hooks.example.com/in', 'credentials'],
    ['not a url', 'valid'],
  ])('refuses the target %s', async (url, reason) => {
    const org = await createTestOrg();
    const response = await org.raw.post('/v1/webhooks', { name: 'ssrf', url, events: ['contact.created'] });
    expect(response.status, response.text).toBe(422);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details.fields[0].field).toBe('url');
    expect(response.body.error.details.fields[0].issue).toContain(reason);
  });

  it('refuses a private target on update too, and keeps the stored url', async () => {
    const org = await createTestOrg();
    const receiver = await receiverFor();
    const webhook = await subscribe(org, receiver.url);
    const response = await org.client.PATCH('/v1/webhooks/{id}', {
      params: { path: { id: webhook.id } },
      body: { url: 'https://172.16.0.1/hook' },
    });
    expect(response.response.status).toBe(422);
    expect((await org.client.GET('/v1/webhooks/{id}', { params: { path: { id: webhook.id } } })).data!.data.url).toBe(receiver.url);
  });

  it('updates name and events, pauses by hand (nothing delivered) and reactivates', async () => {
    const org = await createTestOrg();
    const receiver = await receiverFor();
    const webhook = await subscribe(org, receiver.url, ['deal.created']);
    const updated = await org.client.PATCH('/v1/webhooks/{id}', {
      params: { path: { id: webhook.id } },
      body: { name: 'Renamed', events: ['contact.created'] },
    });
    expect(updated.data!.data).toMatchObject({ name: 'Renamed', events: ['contact.created'], status: 'active' });

    const paused = await org.client.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { status: 'paused' } });
    expect(paused.data!.data.status).toBe('paused');
    expect((await listAll(org.client, '/v1/webhooks', { query: { status: 'paused' } })).map((w) => w.id)).toEqual([webhook.id]);
    await org.client.POST('/v1/contacts', { body: { name: 'Unseen' } });
    await sleep(1_000);
    expect(receiver.received).toHaveLength(0);

    await org.client.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { status: 'active' } });
    await org.client.POST('/v1/contacts', { body: { name: 'Seen' } });
    await receiver.waitFor((all) => all.some((request) => request.event.data.object.name === 'Seen'));
    expect(receiver.received.some((request) => request.event.data.object.name === 'Unseen')).toBe(false);
  });

  it('deletes a subscription and drops its pending retries', async () => {
    const org = await createTestOrg();
    const receiver = await receiverFor({ status: 500 });
    const webhook = await subscribe(org, receiver.url);
    await org.client.POST('/v1/contacts', { body: { name: 'Retry Me' } });
    await receiver.waitFor((all) => all.length >= 1);
    const deleted = await org.client.DELETE('/v1/webhooks/{id}', { params: { path: { id: webhook.id } } });
    expect(deleted.response.status).toBe(204);
    const seen = receiver.received.length;
    await sleep(1_500);
    expect(receiver.received.length).toBeLessThanOrEqual(seen + 1);
    expect((await org.client.GET('/v1/webhooks/{id}', { params: { path: { id: webhook.id } } })).response.status).toBe(404);
    expect((await org.client.DELETE('/v1/webhooks/{id}', { params: { path: { id: webhook.id } } })).response.status).toBe(404);
    expect((await org.client.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id: webhook.id } } })).response.status).toBe(404);
  });

  it('checks ids and scopes', async () => {
    const org = await createTestOrg();
    expect((await org.client.GET('/v1/webhooks/{id}', { params: { path: { id: 'ct_123' } } })).error!.error.code).toBe('INVALID_ID');
    expect(
      (await org.client.GET('/v1/webhooks/deliveries/{deliveryId}', { params: { path: { deliveryId: 'wh_123' } } })).error!.error.code,
    ).toBe('INVALID_ID');
    expect((await org.client.GET('/v1/webhooks/{id}', { params: { path: { id: 'wh_AAAAAAAAAAAAAAAAAAAAAA' } } })).response.status).toBe(
      404,
    );
    const readOnly = await org.keyWith(['read:webhooks']);
    expect((await readOnly.client.GET('/v1/webhooks')).response.status).toBe(200);
    const refused = await readOnly.client.POST('/v1/webhooks', {
      body: { name: 'x', url: 'https://hooks.example.com/in', events: ['contact.created'] },
    });
    expect(refused.response.status).toBe(403);
    expect(refused.error!.error.code).toBe('INSUFFICIENT_SCOPES');
    const writeOnly = await org.keyWith(['write:webhooks']);
    expect((await writeOnly.client.GET('/v1/webhooks/event-types')).response.status).toBe(403);
  });

  it('isolates organizations: subscriptions, deliveries and events', async () => {
    const [a, b] = [await createTestOrg(), await createTestOrg()];
    const [receiverA, receiverB] = [await receiverFor(), await receiverFor()];
    const webhookA = await subscribe(a, receiverA.url);
    const webhookB = await subscribe(b, receiverB.url);

    await a.client.POST('/v1/contacts', { body: { name: 'Only For A' } });
    await receiverA.waitFor((all) => all.length >= 1);
    const deliveryA = await eventually(
      async () => (await a.client.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id: webhookA.id } } })).data!.data[0]!,
    );
    await sleep(500);
    expect(receiverB.received).toHaveLength(0);

    expect((await b.client.GET('/v1/webhooks/{id}', { params: { path: { id: webhookA.id } } })).response.status).toBe(404);
    expect(
      (await b.client.PATCH('/v1/webhooks/{id}', { params: { path: { id: webhookA.id } }, body: { status: 'paused' } })).response.status,
    ).toBe(404);
    expect((await b.client.DELETE('/v1/webhooks/{id}', { params: { path: { id: webhookA.id } } })).response.status).toBe(404);
    expect((await b.client.POST('/v1/webhooks/{id}/rotate-secret', { params: { path: { id: webhookA.id } } })).response.status).toBe(404);
    expect((await b.client.POST('/v1/webhooks/{id}/test', { params: { path: { id: webhookA.id } } })).response.status).toBe(404);
    expect((await b.client.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id: webhookA.id } } })).response.status).toBe(404);
    expect(
      (await b.client.GET('/v1/webhooks/deliveries/{deliveryId}', { params: { path: { deliveryId: deliveryA.id } } })).response.status,
    ).toBe(404);
    expect(
      (await b.client.POST('/v1/webhooks/deliveries/{deliveryId}/redeliver', { params: { path: { deliveryId: deliveryA.id } } })).response
        .status,
    ).toBe(404);
    expect((await listAll(b.client, '/v1/webhooks')).map((webhook) => webhook.id)).toEqual([webhookB.id]);
    expect((await a.client.GET('/v1/webhooks/{id}', { params: { path: { id: webhookA.id } } })).data!.data.status).toBe('active');
  });
});
