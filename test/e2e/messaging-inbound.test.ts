import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { orgWithEvents, type EventLog } from '../support/events';
import { addNumber, eventually, inbound, type TestNumber, uniquePhone } from '../support/messaging';
import type { TestOrg } from '../support/orgs';
import { CALLBACK_TIMESTAMP_HEADER, DEV_CALLBACK_SECRET, signCallback } from '@crm/shared';
import { testSystem } from '../support/system';

describe('inbound messages: conversations, contacts and events', () => {
  let org: TestOrg;
  let events: EventLog;
  let qr: TestNumber;
  let official: TestNumber;

  beforeAll(async () => {
    ({ org, events } = await orgWithEvents());
    qr = await addNumber(org.orgId, 'qrcode', { name: 'Sales QR' });
    official = await addNumber(org.orgId, 'official', { name: 'Support line' });
    return events.stop;
  });

  it('an unknown sender becomes a contact (source chatapp) with a conversation, a message and message.received', async () => {
    const phone = uniquePhone();
    const sent = await inbound(qr, { from: phone, name: 'Ana Souza', text: 'Hi, is it in stock?' });
    expect(sent.callback_statuses).toEqual([200]);

    const conversations = await org.client.GET('/v1/conversations', { params: { query: { channel: 'chatapp' } } });
    const conversation = conversations.data!.data.find((c: any) => c.contact.name === 'Ana Souza')!;
    expect(conversation).toMatchObject({
      channel: 'chatapp',
      chatapp_instance: { id: qr.id, name: 'Sales QR', channel: 'qrcode' },
      status: 'open',
      assigned_to: null,
      unread_count: 1,
      last_message_preview: 'Hi, is it in stock?',
      window_expires_at: null,
      closed_at: null,
    });
    const contact = (await org.raw.get(`/v1/contacts/${conversation.contact.id}`)).body.data;
    expect(contact).toMatchObject({ name: 'Ana Souza', phone, source: 'chatapp', chatapp_jid: `${phone.slice(1)}@c.chatapp` });

    const messages = await org.raw.get(`/v1/conversations/${conversation.id}/messages`);
    expect(messages.status).toBe(200);
    expect(messages.body.meta.total).toBe(1);
    expect(messages.body.data[0]).toMatchObject({
      conversation_id: conversation.id,
      contact_id: contact.id,
      channel: 'chatapp',
      direction: 'inbound',
      type: 'text',
      content: 'Hi, is it in stock?',
      status: 'received',
      sender: { type: 'contact', id: contact.id, name: 'Ana Souza' },
      external_id: sent.id,
      error: null,
      edited_at: null,
    });
    const message = messages.body.data[0];
    expect((await org.raw.get(`/v1/messages/${message.id}`)).body.data).toEqual(message);
    await events.waitFor((all) => all.some((e) => e.type === 'message.received' && e.data.object.id === message.id));
    expect(events.ofType('message.received').find((e) => e.data.object.id === message.id)?.data).toEqual({ object: message });
    await events.waitFor((all) => all.some((e) => e.type === 'contact.created' && e.data.object.id === contact.id));
  });

  it('a callback retried by the provider (sequentially or concurrently) stores one message and one contact', async () => {
    const phone = uniquePhone();
    const first = await inbound(qr, { from: phone, name: 'Retry Person', text: 'once', repeat: 3 });
    expect(first.callback_statuses).toEqual([200, 200, 200]);
    await inbound(qr, { from: phone, name: 'Retry Person', text: 'once', id: first.id, repeat: 4, concurrent: true });
    const contacts = await org.raw.get(`/v1/contacts?search=${encodeURIComponent(phone)}`);
    expect(contacts.body.data).toHaveLength(1);
    const conversation = (await org.raw.get(`/v1/conversations?contact_id=${contacts.body.data[0].id}`)).body.data[0];
    const messages = await org.client.GET('/v1/conversations/{id}/messages', { params: { path: { id: conversation.id } } });
    expect(messages.data!.data.map((m: any) => m.external_id)).toEqual([first.id]);
    await eventually('the single message.received', async () =>
      events.ofType('message.received').some((e) => e.data.object.external_id === first.id),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(events.ofType('message.received').filter((e) => e.data.object.external_id === first.id)).toHaveLength(1);
  });

  it('the same callback delivered concurrently the first time changes the conversation once', async () => {
    const phone = uniquePhone();
    const sent = await inbound(qr, { from: phone, name: 'Racing Retries', text: 'raced', repeat: 5, concurrent: true });
    expect(sent.callback_statuses).toEqual([200, 200, 200, 200, 200]);
    const contact = (await org.client.GET('/v1/contacts', { params: { query: { search: phone } } })).data!.data[0]!;
    const conversations = (await org.raw.get(`/v1/conversations?contact_id=${contact.id}`)).body.data;
    expect(conversations).toHaveLength(1);
    expect(conversations[0].unread_count).toBe(1);
    expect((await org.raw.get(`/v1/conversations/${conversations[0].id}/messages`)).body.data.map((m: any) => m.external_id)).toEqual([
      sent.id,
    ]);
  });

  it('concurrent first messages from one new sender make one contact and one conversation', async () => {
    const phone = uniquePhone();
    await Promise.all([1, 2, 3, 4].map((n) => inbound(qr, { from: phone, name: 'Burst Sender', text: `burst ${n}` })));
    const contacts = await org.raw.get(`/v1/contacts?search=${encodeURIComponent(phone)}`);
    expect(contacts.body.data).toHaveLength(1);
    const conversations = await org.raw.get(`/v1/conversations?contact_id=${contacts.body.data[0].id}`);
    expect(conversations.body.data).toHaveLength(1);
    expect(conversations.body.data[0].unread_count).toBe(4);
    expect((await org.raw.get(`/v1/conversations/${conversations.body.data[0].id}/messages`)).body.meta.total).toBe(4);
  });

  it('an inbound message on an official number opens the 24-hour window from its provider timestamp', async () => {
    const phone = uniquePhone();
    const at = new Date(Date.now() - 2 * 3_600_000);
    await inbound(official, { from: phone, name: 'Window Person', text: 'hello', timestamp: at.toISOString() });
    const contact = (await org.client.GET('/v1/contacts', { params: { query: { search: phone } } })).data!.data[0]!;
    const conversation = (await org.raw.get(`/v1/conversations?contact_id=${contact.id}`)).body.data[0];
    const expected = new Date(Math.floor(at.getTime() / 1000) * 1000 + 24 * 3_600_000).toISOString();
    expect(conversation).toMatchObject({
      chatapp_instance: { id: official.id, channel: 'official' },
      window_expires_at: expected,
      last_message_at: new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString(),
    });
  });

  it('an existing contact with the same phone is linked (gains chatapp_jid) instead of duplicated', async () => {
    const phone = uniquePhone();
    const created = await org.client.POST('/v1/contacts', { body: { name: 'Known Person', phone } });
    expect(created.response.status).toBe(201);
    expect(
      (await org.client.GET('/v1/contacts', { params: { query: { has_chatapp: 'true' } } })).data!.data.some(
        (c: any) => c.id === created.data!.data.id,
      ),
    ).toBe(false);
    await inbound(qr, { from: phone, name: 'Some Push Name', text: 'it is me' });
    const contacts = (await org.client.GET('/v1/contacts', { params: { query: { search: phone } } })).data!.data;
    expect(contacts).toHaveLength(1);
    expect(contacts[0]).toMatchObject({ id: created.data!.data.id, name: 'Known Person', chatapp_jid: `${phone.slice(1)}@c.chatapp` });
    expect(
      (await org.client.GET('/v1/contacts', { params: { query: { has_chatapp: 'true' } } })).data!.data.some(
        (c: any) => c.id === created.data!.data.id,
      ),
    ).toBe(true);
  });

  it('photoapp and socialmsg senders become contacts with their channel identifiers', async () => {
    const photo = await addNumber(org.orgId, 'photoapp');
    const page = await addNumber(org.orgId, 'socialmsg');
    const username = `jane.${Date.now()}`;
    const psid = `psid-${Date.now()}`;
    await inbound(photo, { from: username, name: 'Jane Photo', text: 'love it' });
    await inbound(page, { from: psid, name: 'Diego Page', text: 'do you ship?' });
    const photoContacts = (await org.client.GET('/v1/contacts', { params: { query: { has_photoapp: 'true', source: 'photoapp' } } })).data!
      .data;
    expect(photoContacts.find((c: any) => c.photoapp_username === username)).toMatchObject({ name: 'Jane Photo', source: 'photoapp' });
    const pageContacts = (await org.client.GET('/v1/contacts', { params: { query: { has_socialmsg: 'true' } } })).data!.data;
    expect(pageContacts.find((c: any) => c.socialmsg_psid === psid)).toMatchObject({
      name: 'Diego Page',
      socialmsg_name: 'Diego Page',
      source: 'socialmsg',
    });
    const conversations = (await org.client.GET('/v1/conversations', { params: { query: { channel: 'photoapp' } } })).data!.data;
    expect(conversations[0]).toMatchObject({ channel: 'photoapp', chatapp_instance: null, window_expires_at: null });
  });

  it('refuses callbacks with a bad signature', async () => {
    // The callback listener of one messaging replica (the simulator spreads its own callbacks over all of them).
    const listener = (testSystem().env.SIM_CALLBACK_URL ?? '').split(',')[0];
    const response = await fetch(`${listener}/callbacks/qrcode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bridge-signature': 'sha256=deadbeef' },
      body: JSON.stringify({
        event: 'message.upsert',
        instance: qr.ref,
        data: { id: 'forged', remote_jid: '15550009999@c.chatapp', text: 'forged', timestamp: '1' },
      }),
    });
    expect(response.status).toBe(401);
    expect((await org.client.GET('/v1/contacts', { params: { query: { search: '15550009999' } } })).data!.data).toHaveLength(0);
  });

  it('refuses a correctly signed callback replayed outside the window, and a body past the limit without reading it all', async () => {
    const listener = (testSystem().env.SIM_CALLBACK_URL ?? '').split(',')[0];
    const secret = testSystem().env.PROVIDER_CALLBACK_SECRET ?? DEV_CALLBACK_SECRET;
    const raw = JSON.stringify({
      event: 'message.upsert',
      instance: qr.ref,
      data: { id: 'replayed', remote_jid: '15550008888@c.chatapp', text: 'replayed', timestamp: '1' },
    });
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    const replayed = await fetch(`${listener}/callbacks/qrcode`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [CALLBACK_TIMESTAMP_HEADER]: String(tenMinutesAgo),
        'x-bridge-signature': signCallback(secret, tenMinutesAgo, raw),
      },
      body: raw,
    });
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toEqual({ error: 'stale_timestamp' });
    const unstamped = await fetch(`${listener}/callbacks/qrcode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bridge-signature': signCallback(secret, tenMinutesAgo, raw) },
      body: raw,
    });
    expect(unstamped.status).toBe(401);
    expect((await org.client.GET('/v1/contacts', { params: { query: { search: '15550008888' } } })).data!.data).toHaveLength(0);

    // Declares 2 MB and sends 1 KB of it: the listener answers without waiting for the rest.
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${listener}/callbacks/qrcode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(2 * 1_048_576) },
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
        request.destroy();
      });
      request.on('error', reject);
      request.write('x'.repeat(1024));
    });
    expect(status).toBe(413);
  });
});
