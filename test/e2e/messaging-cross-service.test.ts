import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addNumber, eventually, inbound, sim, type TestNumber, uniquePhone } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

describe('messaging events across services', () => {
  let org: TestOrg;
  let other: TestOrg;
  let qr: TestNumber;
  let receiver: Receiver;

  beforeAll(async () => {
    [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
    qr = await addNumber(org.orgId, 'qrcode', { name: 'Counters QR' });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('the CRM keeps messages_count and last_message_at of the contact from message events, once per event', async () => {
    const phone = uniquePhone();
    const first = await inbound(qr, { from: phone, name: 'Counted', text: 'one' });
    await inbound(qr, { from: phone, text: 'one', id: first.id, repeat: 3 });
    await inbound(qr, { from: phone, text: 'two' });
    const contactId = (await org.raw.get(`/v1/contacts?search=${encodeURIComponent(phone)}`)).body.data[0].id;
    const sent = await org.client.POST('/v1/messages/send', { body: { contact_id: contactId, channel: 'chatapp', content: 'reply' } });
    expect(sent.response.status).toBe(201);
    const contact = await eventually(
      'three counted messages',
      async () => {
        const current = (await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contactId } } })).data!.data;
        return current.messages_count === 3 ? current : undefined;
      },
      20_000,
    );
    expect(contact.last_message_at).toBe(sent.data!.data.created_at);
    // Redelivered or late events change nothing: the count stays at the number of distinct messages.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contactId } } })).data!.data.messages_count).toBe(3);
    expect(
      (await org.client.GET('/v1/contacts', { params: { query: { has_chatapp: 'true' } } })).data!.data.map((c: any) => c.id),
    ).toContain(contactId);
    expect((await other.client.GET('/v1/contacts', { params: { query: { has_chatapp: 'true' } } })).data!.data).toHaveLength(0);
  });

  it('the webhook service delivers message.received, message.sent, message.edited and channel.disconnected to a subscriber', async () => {
    const kinds = [
      'message.received',
      'message.sent',
      'message.edited',
      'message.delivered',
      'channel.disconnected',
      'conversation.closed',
    ];
    const created = await org.raw.post('/v1/webhooks', { name: 'messaging', url: receiver.url, events: kinds });
    expect(created.status, created.text).toBe(201);
    const number = await addNumber(org.orgId, 'qrcode', { name: 'Webhook QR' });
    const phone = uniquePhone();
    const received = await inbound(number, { from: phone, name: 'Hooked', text: 'hello hooks' });
    await sim('edit', { channel: 'qrcode', to_number: number.ref, from: phone, id: received.id, text: 'hello hooks!' });
    const contactId = (await org.raw.get(`/v1/contacts?search=${encodeURIComponent(phone)}`)).body.data[0].id;
    const sent = (
      await org.client.POST('/v1/messages/send', {
        body: { contact_id: contactId, channel: 'chatapp', instance_id: number.id, content: 'hi back' },
      })
    ).data!.data;
    await org.client.POST('/v1/conversations/{id}/close', { params: { path: { id: sent.conversation_id } } });
    await sim('numbers', { channel: 'qrcode', to_number: number.ref, connected: false });

    const types = await eventually(
      'every kind delivered',
      async () => {
        const got = new Set(receiver.received.map((r) => r.event.type));
        return kinds.every((kind) => got.has(kind)) ? got : undefined;
      },
      15_000,
    );
    expect([...types].sort()).toEqual([...kinds].sort());
    const sentEvent = receiver.received.find((r) => r.event.type === 'message.sent' && r.event.data.object.id === sent.id);
    expect(sentEvent?.event).toMatchObject({ api_version: 'v1', data: { object: { id: sent.id, content: 'hi back', status: 'sent' } } });
    const edited = receiver.received.find((r) => r.event.type === 'message.edited');
    expect(edited?.event.data).toMatchObject({
      object: { content: 'hello hooks!', external_id: received.id },
      previous: { content: 'hello hooks' },
    });
    expect(receiver.received.find((r) => r.event.type === 'channel.disconnected')?.event.data.object).toMatchObject({
      id: number.id,
      status: 'disconnected',
    });
  });

  it('measures send → message.sent webhook latency', async () => {
    const url = `${receiver.url}`;
    const hook = await other.client.POST('/v1/webhooks', { body: { name: 'latency', url, events: ['message.sent'] } });
    expect(hook.response.status).toBe(201);
    const number = await addNumber(other.orgId, 'qrcode', { name: 'Latency QR' });
    const phone = uniquePhone();
    await inbound(number, { from: phone, name: 'Latency', text: 'hi' });
    const contactId = (await other.raw.get(`/v1/contacts?search=${encodeURIComponent(phone)}`)).body.data[0].id;
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = Date.now();
      const sent = (
        await other.client.POST('/v1/messages/send', {
          body: {
            contact_id: contactId,
            channel: 'chatapp',
            instance_id: number.id,
            content: `latency ${i}`,
          },
        })
      ).data!.data;
      const delivery = await eventually(
        'the message.sent delivery',
        async () => receiver.received.find((r) => r.event.type === 'message.sent' && r.event.data.object.id === sent.id),
        10_000,
      );
      latencies.push(delivery.receivedAt - started);
    }
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    console.warn(`send → message.sent webhook over ${latencies.length} sends: p50 ${p50} ms, p99 ${p99} ms`);
    expect(p50).toBeLessThan(2_000);
  });
});
