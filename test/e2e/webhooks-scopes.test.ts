import { afterAll, describe, expect, it } from 'vitest';
import { createTestOrg, type ScopedKey, type TestOrg } from '../support/orgs';
import { eventually, sleep, startReceiver, type Receiver } from '../support/webhook-receiver';

/**
 * Issue 22 finding 1: a subscription, a delivery's stored body and a redelivery carry the data of their kinds, so a
 * key needs the read scope that guards each kind, as on the read routes; and a subscription stops delivering once
 * the key that answers for it is revoked.
 */
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiverFor() {
  const receiver = await startReceiver();
  receivers.push(receiver);
  return receiver;
}

const WEBHOOK_KEY = ['read:webhooks', 'write:webhooks'];

async function subscribeWith(key: ScopedKey | TestOrg, url: string, events: string[]) {
  return key.raw.post('/v1/webhooks', { name: 'scoped', url, events });
}

async function deliveredDelivery(org: TestOrg, webhookId: string) {
  return eventually(async () => {
    const list = await org.raw.get(`/v1/webhooks/${webhookId}/deliveries`);
    return (list.body.data as Array<{ id: string; status: string }>).find((delivery) => delivery.status === 'succeeded');
  });
}

describe('webhook scopes', () => {
  it('refuses a subscription to kinds the key cannot read, naming the missing read scopes', async () => {
    const org = await createTestOrg();
    const webhooksOnly = await org.keyWith(WEBHOOK_KEY);
    expect((await webhooksOnly.raw.get('/v1/contacts')).status).toBe(403);

    const refused = await subscribeWith(webhooksOnly, 'https://hooks.example.com/in', ['contact.created', 'message.received']);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error).toMatchObject({
      type: 'forbidden',
      code: 'INSUFFICIENT_SCOPES',
      required_scopes: ['write:webhooks', 'read:contacts', 'read:conversations'],
      missing_scopes: ['read:contacts', 'read:conversations'],
      your_scopes: WEBHOOK_KEY,
    });
    expect((await org.raw.get('/v1/webhooks')).body.data).toHaveLength(0);

    // Message bodies: read:messages reads one message by id; streaming them needs read:conversations.
    const messagesOnly = await org.keyWith([...WEBHOOK_KEY, 'read:messages']);
    const noBodies = await subscribeWith(messagesOnly, 'https://hooks.example.com/in', ['message.received']);
    expect(noBodies.body.error.missing_scopes).toEqual(['read:conversations']);

    const contactsKey = await org.keyWith([...WEBHOOK_KEY, 'read:contacts']);
    const created = await subscribeWith(contactsKey, 'https://hooks.example.com/in', ['contact.created', 'contact.updated']);
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ key_id: contactsKey.keyId, status: 'active', paused_reason: null });
  });

  it('needs every read scope to subscribe to every kind', async () => {
    const org = await createTestOrg();
    const kinds = (await org.raw.get('/v1/webhooks/event-types?limit=100')).body.data.map((kind: { type: string }) => kind.type);
    const almost = await org.keyWith([...WEBHOOK_KEY, 'read:contacts', 'read:companies', 'read:deals', 'read:tasks']);
    const refused = await subscribeWith(almost, 'https://hooks.example.com/in', kinds);
    expect(refused.status).toBe(403);
    expect(refused.body.error.missing_scopes).toEqual(
      expect.arrayContaining(['read:conversations', 'read:broadcasts', 'read:ai_agents', 'read:chatapp_instances']),
    );
    expect(refused.body.error.missing_scopes).not.toContain('read:contacts');
    expect((await subscribeWith(org, 'https://hooks.example.com/in', kinds)).status).toBe(201);
  });

  it('checks the read scopes of the subscription after an update', async () => {
    const org = await createTestOrg();
    const webhook = (await subscribeWith(org, 'https://hooks.example.com/in', ['contact.created'])).body.data;
    const webhooksOnly = await org.keyWith(WEBHOOK_KEY);
    const rename = await webhooksOnly.raw.patch(`/v1/webhooks/${webhook.id}`, { url: 'https://elsewhere.example.com/in' });
    expect(rename.status).toBe(403);
    expect(rename.body.error.missing_scopes).toEqual(['read:contacts']);

    const contactsKey = await org.keyWith([...WEBHOOK_KEY, 'read:contacts']);
    const widen = await contactsKey.raw.patch(`/v1/webhooks/${webhook.id}`, { events: ['contact.created', 'deal.created'] });
    expect(widen.status).toBe(403);
    expect(widen.body.error.missing_scopes).toEqual(['read:deals']);
    expect((await org.raw.get(`/v1/webhooks/${webhook.id}`)).body.data).toMatchObject({
      url: 'https://hooks.example.com/in',
      events: ['contact.created'],
    });
  });

  it('guards the stored body and the redelivery of a delivery by the read scope of its kind', async () => {
    const org = await createTestOrg();
    const receiver = await receiverFor();
    const webhook = (await subscribeWith(org, receiver.url, ['contact.created'])).body.data;
    await org.raw.post('/v1/contacts', { name: 'Scoped Body', email: 'scoped.body@example.com' });
    const delivery = await deliveredDelivery(org, webhook.id);

    const webhooksOnly = await org.keyWith(WEBHOOK_KEY);
    expect((await webhooksOnly.raw.get(`/v1/webhooks/${webhook.id}/deliveries`)).status).toBe(200);
    const detail = await webhooksOnly.raw.get(`/v1/webhooks/deliveries/${delivery.id}`);
    expect(detail.status).toBe(403);
    expect(detail.text).not.toContain('scoped.body@example.com');
    expect(detail.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPES', missing_scopes: ['read:contacts'] });
    const redeliver = await webhooksOnly.raw.post(`/v1/webhooks/deliveries/${delivery.id}/redeliver`);
    expect(redeliver.status).toBe(403);
    expect(redeliver.body.error.missing_scopes).toEqual(['read:contacts']);

    const contactsKey = await org.keyWith([...WEBHOOK_KEY, 'read:contacts']);
    const allowed = await contactsKey.raw.get(`/v1/webhooks/deliveries/${delivery.id}`);
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.request_body).toContain('scoped.body@example.com');
    expect((await contactsKey.raw.post(`/v1/webhooks/deliveries/${delivery.id}/redeliver`)).status).toBe(200);
  });

  it('pauses the subscriptions of a revoked key, until a key holding their scopes reactivates them', async () => {
    const org = await createTestOrg();
    const receiver = await receiverFor();
    const contactsKey = await org.keyWith([...WEBHOOK_KEY, 'read:contacts']);
    const webhook = (await subscribeWith(contactsKey, receiver.url, ['contact.created'])).body.data;
    const other = (await subscribeWith(org, receiver.url, ['contact.updated'])).body.data;

    expect((await org.raw.delete(`/v1/api-keys/${contactsKey.keyId}`)).status).toBe(204);
    const paused = await eventually(async () => {
      const read = await org.raw.get(`/v1/webhooks/${webhook.id}`);
      return read.body.data.status === 'paused' ? read.body.data : undefined;
    });
    expect(paused).toMatchObject({ paused_reason: 'api_key_revoked', key_id: contactsKey.keyId });
    expect((await org.raw.get(`/v1/webhooks/${other.id}`)).body.data).toMatchObject({ status: 'active', paused_reason: null });

    await org.raw.post('/v1/contacts', { name: 'After Revocation' });
    await sleep(800);
    expect(receiver.received.filter((request) => request.event.type === 'contact.created')).toHaveLength(0);

    const webhooksOnly = await org.keyWith(WEBHOOK_KEY);
    expect((await webhooksOnly.raw.patch(`/v1/webhooks/${webhook.id}`, { status: 'active' })).status).toBe(403);
    const reactivated = await org.raw.patch(`/v1/webhooks/${webhook.id}`, { status: 'active' });
    expect(reactivated.body.data).toMatchObject({ status: 'active', paused_reason: null, key_id: org.keyId });
    await sleep(800);
    expect((await org.raw.get(`/v1/webhooks/${webhook.id}`)).body.data.status).toBe('active');
    await org.raw.post('/v1/contacts', { name: 'After Reactivation' });
    await receiver.waitFor((all) => all.some((request) => request.event.data.object?.name === 'After Reactivation'));
  });
});
