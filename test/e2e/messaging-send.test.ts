import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { orgWithEvents, type EventLog } from '../support/events';
import {
  addNumber,
  addTemplate,
  configureNumber,
  eventually,
  inbound,
  sim,
  type TestNumber,
  uniquePhone,
  sendChatText,
  sendTemplate,
} from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';

const HOUR = 3_600_000;

describe('POST /v1/messages/send and delivery statuses', () => {
  let org: TestOrg;
  let events: EventLog;
  let qr: TestNumber;
  let official: TestNumber;

  /** A contact that wrote to `number` (at `at`), as the inbound path creates it. */
  async function contactWhoWrote(number: TestNumber, at = new Date()): Promise<{ id: string; phone: string }> {
    const phone = uniquePhone();
    await inbound(number, { from: phone, name: `Writer ${phone}`, text: 'hello', timestamp: at.toISOString() });
    const contact = (await org.client.GET('/v1/contacts', { params: { query: { search: phone } } })).data!.data[0]!;
    return { id: contact.id, phone };
  }

  const sentAt = async (ref: string) => (await sim<{ data: Array<{ id: string; body: any; to: string }> }>(`sent?ref=${ref}`)).body.data;

  beforeAll(async () => {
    ({ org, events } = await orgWithEvents());
    qr = await addNumber(org.orgId, 'qrcode', { name: 'QR' });
    official = await addNumber(org.orgId, 'official', { name: 'Official', isDefault: true });
    await addTemplate(org.orgId, official.id, { name: 'order_update', language: 'en_US', text: 'Hi {{1}}, order {{2}} shipped.' });
    await addTemplate(org.orgId, official.id, { name: 'welcome', language: 'en_US', text: 'Welcome!' });
    await addTemplate(org.orgId, official.id, { name: 'welcome', language: 'pt_BR', status: 'PENDING', text: 'Bem-vindo!' });
    await addTemplate(org.orgId, official.id, { name: 'promo', language: 'en_US', status: 'REJECTED', text: 'Promo' });
    return events.stop;
  });

  it('sends free text on a QR-code number: 201 sent with the provider id, message.sent, then delivered and read', async () => {
    const contact = await contactWhoWrote(qr);
    const response = await org.client.POST('/v1/messages/send', {
      body: {
        contact_id: contact.id,
        channel: 'chatapp',
        content: 'We have it in blue.',
      },
    });
    expect(response.response.status).toBe(201);
    const message = response.data!.data;
    expect(message).toMatchObject({
      contact_id: contact.id,
      channel: 'chatapp',
      direction: 'outbound',
      type: 'text',
      content: 'We have it in blue.',
      status: 'sent',
      sender: { type: 'api', id: org.keyId, name: null },
      error: null,
    });
    expect(message.external_id).toMatch(/^3EB0/);
    expect((await sentAt(qr.ref)).find((s) => s.id === message.external_id)?.body).toMatchObject({
      text: 'We have it in blue.',
      to: `${contact.phone.slice(1)}@c.chatapp`,
    });
    await events.waitFor((all) => all.some((e) => e.type === 'message.sent' && e.data.object.id === message.id));
    expect(events.ofType('message.sent').find((e) => e.data.object.id === message.id)?.data).toEqual({ object: message });
    const read = await eventually('status read', async () => {
      const current = (await org.client.GET('/v1/messages/{id}', { params: { path: { id: message.id } } })).data!.data;
      return current.status === 'read' ? current : undefined;
    });
    expect(read).toMatchObject({ id: message.id, status: 'read', error: null });
    const conversation = (await org.client.GET('/v1/conversations/{id}', { params: { path: { id: message.conversation_id } } })).data!.data;
    expect(conversation).toMatchObject({ last_message_preview: 'We have it in blue.', chatapp_instance: { id: qr.id } });
  });

  it('silently ignores template fields on a QR-code number, which then needs content', async () => {
    const contact = await contactWhoWrote(qr);
    const ignored = await org.client.POST('/v1/messages/send', {
      body: {
        contact_id: contact.id,
        channel: 'chatapp',
        instance_id: qr.id,
        content: 'plain',
        template_name: 'order_update',
        template_language: 'en_US',
      },
    });
    expect(ignored.response.status).toBe(201);
    expect(ignored.data!.data).toMatchObject({ type: 'text', content: 'plain', template: null });
    const noContent = await sendTemplate(org.client, contact.id, qr.id, 'order_update', 'en_US');
    expect(noContent.response.status).toBe(422);
    expect(noContent.error!.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [{ field: 'content' }] } });
  });

  it('official numbers: free text only inside the 24-hour window opened by the contact', async () => {
    const stale = await contactWhoWrote(official, new Date(Date.now() - 25 * HOUR));
    const outside = await sendChatText(org.client, stale.id, official.id, 'late reply');
    expect(outside.response.status).toBe(422);
    expect(outside.error!.error.code).toBe('OUTSIDE_MESSAGING_WINDOW');
    expect(outside.error!.error.type).toBe('unprocessable');

    // The contact writes again: the window opens and the same send goes through.
    await inbound(official, { from: stale.phone, text: 'are you there?' });
    const inside = await sendChatText(org.client, stale.id, official.id, 'yes!');
    expect(inside.response.status).toBe(201);
    expect(inside.data!.data.status).toBe('sent');

    const never = (await org.client.POST('/v1/contacts', { body: { name: 'Never wrote', phone: uniquePhone() } })).data!.data;
    const refused = await sendChatText(org.client, never.id, official.id, 'hi');
    expect(refused.error!.error.code).toBe('OUTSIDE_MESSAGING_WINDOW');
  });

  it('official numbers: an APPROVED template in its exact language with its variables, and its external_id', async () => {
    const contact = (await org.client.POST('/v1/contacts', { body: { name: 'Template target', phone: uniquePhone() } })).data!.data;
    const components = [
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'Ana' },
          { type: 'text', text: '1042' },
        ],
      },
    ];
    const response = await org.client.POST('/v1/messages/send', {
      body: {
        contact_id: contact.id,
        channel: 'chatapp',
        template_name: 'order_update',
        template_language: 'en_US',
        template_components: components,
      },
    });
    expect(response.response.status).toBe(201);
    expect(response.data!.data).toMatchObject({
      type: 'template',
      template: { name: 'order_update', language: 'en_US' },
      content: null,
      status: 'sent',
    });
    expect(response.data!.data.external_id).toMatch(/^wamid\./);
    expect((await sentAt(official.ref)).find((s) => s.id === response.data!.data.external_id)?.body).toMatchObject({
      type: 'template',
      template: { name: 'order_update', language: { code: 'en_US' }, components },
    });

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ template_name: 'order_update', template_language: 'en_US' }, 'VALIDATION_ERROR'], // variables missing
      [{ template_name: 'order_update', template_language: 'en' }, 'TEMPLATE_NOT_FOUND'], // language must match exactly
      [{ template_name: 'welcome', template_language: 'pt_BR' }, 'TEMPLATE_NOT_FOUND'], // PENDING
      [{ template_name: 'promo', template_language: 'en_US' }, 'TEMPLATE_NOT_FOUND'], // REJECTED
      [{ template_name: 'nope', template_language: 'en_US' }, 'TEMPLATE_NOT_FOUND'],
      [{ template_language: 'en_US' }, 'VALIDATION_ERROR'],
    ];
    for (const [fields, code] of cases) {
      const refused = await org.client.POST('/v1/messages/send', {
        body: {
          contact_id: contact.id,
          channel: 'chatapp',
          instance_id: official.id,
          ...fields,
        },
      });
      expect([refused.response.status, refused.error!.error.code, fields]).toEqual([422, code, fields]);
    }
  });

  it('a template approved at the provider becomes sendable (status callback)', async () => {
    const contact = (await org.client.POST('/v1/contacts', { body: { name: 'Approval target', phone: uniquePhone() } })).data!.data;
    const before = await sendTemplate(org.client, contact.id, official.id, 'welcome', 'pt_BR');
    expect(before.error!.error.code).toBe('TEMPLATE_NOT_FOUND');
    const approved = await sim('templates', {
      channel: 'official',
      to_number: official.ref,
      name: 'welcome',
      language: 'pt_BR',
      status: 'APPROVED',
    });
    expect(approved.body.callback_status).toBe(200);
    const listed = await org.raw.get(`/v1/chatapp-instances/${official.id}/templates?name=welcome&language=pt_BR`);
    expect(listed.body.data[0].status).toBe('APPROVED');
    const after = await sendTemplate(org.client, contact.id, official.id, 'welcome', 'pt_BR');
    expect(after.response.status).toBe(201);
  });

  it('131042: a send accepted as sent fails later with error.code 131042 and message.failed', async () => {
    const billing = await addNumber(org.orgId, 'official', { name: 'Declined card' });
    await addTemplate(org.orgId, billing.id, { name: 'welcome', text: 'Welcome!' });
    await configureNumber(billing, { late_billing_failure: true });
    const contact = (await org.client.POST('/v1/contacts', { body: { name: 'Billing target', phone: uniquePhone() } })).data!.data;
    const response = await sendTemplate(org.client, contact.id, billing.id, 'welcome', 'en_US');
    expect(response.response.status).toBe(201);
    expect(response.data!.data.status).toBe('sent');
    const failed = await eventually('status failed', async () => {
      const current = (await org.raw.get(`/v1/messages/${response.data!.data.id}`)).body.data;
      return current.status === 'failed' ? current : undefined;
    });
    expect(failed.error).toEqual({ code: '131042', message: 'Business eligibility payment issue' });
    await events.waitFor((all) => all.some((e) => e.type === 'message.failed' && e.data.object.id === failed.id));
    // A client that missed the event finds the conversation by updated_after (spec §6 rule 8).
    const since = new Date(Date.parse(response.data!.data.created_at) + 1).toISOString();
    const changed = (await org.client.GET('/v1/conversations', { params: { query: { updated_after: since } } })).data!.data;
    expect(changed.map((c: any) => c.id)).toContain(failed.conversation_id);
  });

  it('refuses an official send before it leaves when the provider account reports no payment method (131042 pre-check)', async () => {
    const unpaid = await addNumber(org.orgId, 'official', { name: 'No billing' });
    await addTemplate(org.orgId, unpaid.id, { name: 'welcome', text: 'Welcome!' });
    await configureNumber(unpaid, { payment_method: false });
    const contact = (await org.client.POST('/v1/contacts', { body: { name: 'Unpaid target', phone: uniquePhone() } })).data!.data;
    const response = await sendTemplate(org.client, contact.id, unpaid.id, 'welcome', 'en_US');
    expect(response.response.status).toBe(422);
    expect(response.error!.error).toMatchObject({ code: 'TEMPLATE_SEND_ERROR', details: { provider_code: '131042' } });
    expect(response.error!.error.message).toMatch(/payment method/);
    expect(await sentAt(unpaid.ref)).toHaveLength(0);
  });

  it('maps provider refusals and timeouts: TEMPLATE_SEND_ERROR 422, TEMPLATE_NOT_CONFIRMED 502', async () => {
    const contact = await contactWhoWrote(qr);
    await configureNumber(qr, { fail_next: [{ mode: 'error', code: 470, message: 'Recipient blocked' }, { mode: 'timeout' }] });
    const refused = await sendChatText(org.client, contact.id, qr.id, 'one');
    expect(refused.response.status).toBe(422);
    expect(refused.error!.error).toMatchObject({ code: 'TEMPLATE_SEND_ERROR', details: { provider_code: '470' } });
    const timedOut = await sendChatText(org.client, contact.id, qr.id, 'two');
    expect(timedOut.response.status).toBe(502);
    expect(timedOut.error!.error).toMatchObject({
      code: 'TEMPLATE_NOT_CONFIRMED',
      type: 'upstream_error',
      details: { provider_code: 'timeout' },
    });
  });

  it('per-number and per-page rate limits answer 429 with Retry-After', async () => {
    const limited = await addNumber(org.orgId, 'qrcode', { name: 'Limited' });
    const contact = await contactWhoWrote(limited);
    await configureNumber(limited, { rate_limit: { limit: 1, window_ms: 30_000 } });
    expect((await sendChatText(org.client, contact.id, limited.id, 'first')).response.status).toBe(201);
    const second = await org.raw.post('/v1/messages/send', {
      contact_id: contact.id,
      channel: 'chatapp',
      instance_id: limited.id,
      content: 'second',
    });
    expect(second.status).toBe(429);
    expect(second.body.error).toMatchObject({ code: 'CHATAPP_INSTANCE_RATE_LIMIT', type: 'rate_limited' });
    const retryAfter = Number(second.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(second.body.error.details.retry_after_seconds).toBe(retryAfter);

    const page = await addNumber(org.orgId, 'socialmsg', { name: 'Page' });
    const psid = `psid-${randomUUID()}`;
    await inbound(page, { from: psid, name: 'Page fan', text: 'hi' });
    const fan = (await org.client.GET('/v1/contacts', { params: { query: { source: 'socialmsg' } } })).data!.data.find(
      (c: any) => c.socialmsg_psid === psid,
    )!;
    await configureNumber(page, { rate_limit: { limit: 0, window_ms: 10_000 } });
    const pageLimited = await org.raw.post('/v1/messages/send', { contact_id: fan.id, channel: 'socialmsg', content: 'thanks' });
    expect(pageLimited.status).toBe(429);
    expect(pageLimited.body.error.code).toBe('SOCIALMSG_PAGE_RATE_LIMIT');
    expect(Number(pageLimited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a disconnected number raises channel.disconnected and refuses sends with CHANNEL_DISCONNECTED until it reconnects', async () => {
    const phoneNumber = await addNumber(org.orgId, 'qrcode', { name: 'Flaky phone' });
    const contact = await contactWhoWrote(phoneNumber);
    const down = await configureNumber(phoneNumber, { connected: false });
    expect(down.body.callback_status).toBe(200);
    expect((await org.client.GET('/v1/chatapp-instances/{id}', { params: { path: { id: phoneNumber.id } } })).data!.data.status).toBe(
      'disconnected',
    );
    await events.waitFor((all) => all.some((e) => e.type === 'channel.disconnected' && e.data.object.id === phoneNumber.id));
    const refused = await sendChatText(org.client, contact.id, phoneNumber.id, 'hello?');
    expect(refused.response.status).toBe(409);
    expect(refused.error!.error).toMatchObject({ code: 'CHANNEL_DISCONNECTED', type: 'conflict' });
    await configureNumber(phoneNumber, { connected: true });
    await events.waitFor((all) => all.some((e) => e.type === 'channel.connected' && e.data.object.id === phoneNumber.id));
    expect((await sendChatText(org.client, contact.id, phoneNumber.id, 'back')).response.status).toBe(201);
  });

  it('refuses contacts without the channel, unknown references and malformed ids', async () => {
    const bare = (await org.client.POST('/v1/contacts', { body: { name: 'No channels' } })).data!.data;
    const unavailable = await sendChatText(org.client, bare.id, qr.id, 'x');
    expect([unavailable.response.status, unavailable.error!.error.code]).toEqual([422, 'CONTACT_CHANNEL_UNAVAILABLE']);
    const noPhoto = await org.client.POST('/v1/messages/send', { body: { contact_id: bare.id, channel: 'photoapp', content: 'x' } });
    expect(noPhoto.error!.error.code).toBe('CONTACT_CHANNEL_UNAVAILABLE');

    const other = await createTestOrg();
    const foreign = (await other.client.POST('/v1/contacts', { body: { name: 'Foreign', phone: uniquePhone() } })).data!.data;
    const foreignNumber = await addNumber(other.orgId, 'qrcode');
    const contact = await contactWhoWrote(qr);
    const checks: Array<[Record<string, unknown>, number, string]> = [
      [{ contact_id: foreign.id, channel: 'chatapp', content: 'x' }, 422, 'INVALID_REFERENCE'],
      [{ contact_id: 'ct_0000000000000000000000', channel: 'chatapp', content: 'x' }, 422, 'INVALID_REFERENCE'],
      [{ contact_id: contact.id, channel: 'chatapp', instance_id: foreignNumber.id, content: 'x' }, 422, 'INVALID_REFERENCE'],
      [
        { contact_id: contact.id, channel: 'chatapp', conversation_id: 'cv_0000000000000000000000', content: 'x' },
        422,
        'INVALID_REFERENCE',
      ],
      [{ contact_id: 'nope', channel: 'chatapp', content: 'x' }, 400, 'INVALID_ID'],
      [{ contact_id: contact.id, channel: 'fax', content: 'x' }, 422, 'VALIDATION_ERROR'],
      [{ contact_id: contact.id, channel: 'chatapp', type: 'image' }, 422, 'VALIDATION_ERROR'],
      [{ contact_id: contact.id, channel: 'chatapp', content: 'x', colour: 'red' }, 422, 'UNKNOWN_FIELDS'],
    ];
    for (const [body, status, code] of checks) {
      const response = await org.raw.post('/v1/messages/send', body);
      expect([response.status, response.body.error?.code, body]).toEqual([status, code, body]);
    }
  });

  it("chooses the number: the contact's latest chatapp conversation, else the default number", async () => {
    const contact = await contactWhoWrote(qr);
    const viaLatest = await org.client.POST('/v1/messages/send', {
      body: {
        contact_id: contact.id,
        channel: 'chatapp',
        content: 'from the same number',
      },
    });
    expect((await org.raw.get(`/v1/conversations/${viaLatest.data!.data.conversation_id}`)).body.data.chatapp_instance.id).toBe(qr.id);
    const stranger = (await org.client.POST('/v1/contacts', { body: { name: 'Default target', phone: uniquePhone() } })).data!.data;
    const viaDefault = await org.client.POST('/v1/messages/send', {
      body: {
        contact_id: stranger.id,
        channel: 'chatapp',
        template_name: 'welcome',
        template_language: 'en_US',
      },
    });
    expect(viaDefault.response.status).toBe(201);
    expect((await org.raw.get(`/v1/conversations/${viaDefault.data!.data.conversation_id}`)).body.data.chatapp_instance.id).toBe(
      official.id,
    );
  });

  it('honours Idempotency-Key: a repeated send reaches the provider once', async () => {
    const contact = await contactWhoWrote(qr);
    const key = randomUUID();
    const body = { contact_id: contact.id, channel: 'chatapp', instance_id: qr.id, content: `idempotent ${key}` };
    const first = await org.raw.post('/v1/messages/send', body, { headers: { 'idempotency-key': key } });
    const second = await org.raw.post('/v1/messages/send', body, { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await sentAt(qr.ref)).filter((s) => s.body.text === body.content)).toHaveLength(1);

    const reused = await org.raw.post('/v1/messages/send', { ...body, content: 'another text' }, { headers: { 'idempotency-key': key } });
    expect([reused.status, reused.body.error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    const badJson = await org.raw.request('POST', '/v1/messages/send', {
      rawBody: '{"contact_id":',
      headers: { 'content-type': 'application/json' },
    });
    expect([badJson.status, badJson.body.error.code]).toEqual([400, 'INVALID_JSON']);
  });

  it('edits arrive as message.edited; a message typed on the phone is message.sent from the device', async () => {
    const phone = uniquePhone();
    const sent = await inbound(qr, { from: phone, name: 'Editor', text: 'typo' });
    await sim('edit', { channel: 'qrcode', to_number: qr.ref, from: phone, id: sent.id, text: 'fixed' });
    const contact = (await org.client.GET('/v1/contacts', { params: { query: { search: phone } } })).data!.data[0]!;
    const conversation = (await org.raw.get(`/v1/conversations?contact_id=${contact.id}`)).body.data[0];
    const edited = (await org.raw.get(`/v1/conversations/${conversation.id}/messages`)).body.data[0];
    expect(edited).toMatchObject({ external_id: sent.id, content: 'fixed' });
    expect(edited.edited_at).not.toBeNull();
    await events.waitFor((all) =>
      all.some((e) => e.type === 'message.edited' && e.data.object.id === edited.id && e.data.previous.content === 'typo'),
    );

    const typed = await sim('phone-send', { channel: 'qrcode', to_number: qr.ref, recipient: phone, text: 'typed on the phone' });
    expect(typed.body.callback_status).toBe(200);
    const messages = (await org.raw.get(`/v1/conversations/${conversation.id}/messages`)).body.data;
    expect(messages[0]).toMatchObject({
      direction: 'outbound',
      content: 'typed on the phone',
      sender: { type: 'device', id: null, name: null },
      external_id: typed.body.id,
    });
    await events.waitFor((all) => all.some((e) => e.type === 'message.sent' && e.data.object.id === messages[0].id));
  });
});
