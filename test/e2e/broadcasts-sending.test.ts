import { beforeAll, describe, expect, it } from 'vitest';
import { listAll } from '@crm/client';
import {
  addHeaderTemplate,
  createBroadcast,
  createContactsFast,
  createContactsInOrder,
  digitsOf,
  expectStats,
  launch,
  phoneSeries,
  recipientsOf,
  sendsOf,
  waitForFinished,
  type CreatedContact,
} from '../support/broadcasts';
import { eventsOf, orgWithEvents, type EventLog } from '../support/events';
import { setContactChannels } from '../support/fixtures';
import { addNumber, addTemplate, configureNumber, uniquePhone, type TestNumber } from '../support/messaging';
import { addCustomField, createTestOrg, type TestOrg } from '../support/orgs';

const text = (value: string) => ({ type: 'text', text: value });

describe('sending a broadcast: per-recipient templates, provider errors, pacing over numbers', () => {
  let org: TestOrg;
  let events: EventLog;

  /** Contacts made one after the other under a tag of their own (their creation order is the send order). */
  const people = (tag: string, count: number, extra: (i: number) => Record<string, unknown> = () => ({})) =>
    createContactsInOrder(
      org,
      Array.from({ length: count }, (_, i) => ({ name: `${tag} person ${i}`, phone: uniquePhone(), tags: [tag], ...extra(i) })),
    );
  const officialWithNotice = async (name: string) => {
    const number = await addNumber(org.orgId, 'official', { name });
    const template = (await addTemplate(org.orgId, number.id, { name: 'notice', category: 'utility', text: 'A notice' })) as { id: string };
    return { number, template };
  };
  const noticeBroadcast = (name: string, number: TestNumber, template: { id: string }, tag: string) =>
    createBroadcast(org.client, {
      name,
      chatappInstanceIds: [number.id],
      audience: { type: 'tags', tags: [tag] },
      cloudTemplate: { templateId: template.id, language: 'en_US' },
    });

  beforeAll(async () => {
    ({ org, events } = await orgWithEvents());
    await addCustomField(org.orgId, { entity: 'contact', key: 'city', type: 'text' });
    return events.stop;
  });

  it('fills each recipient’s template parameters from its contact (fallback when missing) and static values, in template order', async () => {
    const number = await addNumber(org.orgId, 'official', { name: 'Offers' });
    const template = await addHeaderTemplate(org.orgId, number.id, {
      name: 'welcome_offer',
      header: 'Hello {{1}}',
      body: 'Hi {{1}}, the {{2}} store has a gift: code {{3}}',
    });
    expect(template.variables).toEqual([
      { key: '1', component: 'header' },
      { key: '1', component: 'body' },
      { key: '2', component: 'body' },
      { key: '3', component: 'body' },
    ]);
    const [ana, bruno] = await createContactsInOrder(org, [
      { name: 'Ana Maria Souza', phone: uniquePhone(), tags: ['offer'], custom_fields: { city: 'Lisbon' } },
      { name: 'Bruno', phone: uniquePhone(), tags: ['offer'] },
    ]);
    // Given out of order: the provider's parameters are positional, so they are sent in the template's order.
    const broadcast = await createBroadcast(org.client, {
      name: 'Welcome offer',
      chatappInstanceIds: [number.id],
      audience: { type: 'tags', tags: ['offer'] },
      cloudTemplate: {
        templateId: template.id,
        language: 'en_US',
        variables: [
          { key: '3', component: 'body', sourceType: 'static', value: 'SPRING10' },
          { key: '1', component: 'header', sourceType: 'contact_field', sourceKey: 'name', fallback: 'Customer' },
          { key: '2', component: 'body', sourceType: 'contact_field', sourceKey: 'custom_fields.city', fallback: 'nearest' },
          { key: '1', component: 'body', sourceType: 'contact_field', sourceKey: 'first_name', fallback: 'friend' },
        ],
      },
    });
    expect(broadcast.cloud_template.variables.map((v: { component: string; key: string }) => `${v.component}.${v.key}`)).toEqual([
      'header.1',
      'body.1',
      'body.2',
      'body.3',
    ]);
    await launch(org.client, broadcast.id);
    const done = await waitForFinished(org.client, broadcast.id);
    expect(done.status).toBe('completed');
    await expectStats(org.client, broadcast.id, { total: 2, sent: 2, delivered: 2, read: 2, failed: 0, excluded: 0 });

    // Up to a window of sends is in flight at once, so the provider may take them in another order: by recipient.
    const sends = await sendsOf(number);
    expect(sends).toHaveLength(2);
    const sendTo = (contact: CreatedContact) => sends.find((s) => s.to === digitsOf(contact.phone!));
    const templateSend = (contact: CreatedContact, header: string[], body: string[]) => ({
      messaging_product: 'chatapp',
      recipient_type: 'individual',
      to: digitsOf(contact.phone!),
      type: 'template',
      template: {
        name: 'welcome_offer',
        language: { code: 'en_US' },
        components: [
          { type: 'header', parameters: header.map(text) },
          { type: 'body', parameters: body.map(text) },
        ],
      },
    });
    expect(sendTo(ana!)?.body).toEqual(templateSend(ana!, ['Ana Maria Souza'], ['Ana', 'Lisbon', 'SPRING10']));
    expect(sendTo(bruno!)?.body).toEqual(templateSend(bruno!, ['Bruno'], ['Bruno', 'nearest', 'SPRING10']));

    // Each message is stored as a template send by the broadcast, and raised as message.sent with that sender.
    const recipients = await recipientsOf(org.client, broadcast.id);
    const messageIds = recipients.map((r) => r.message_id as string);
    for (const [index, id] of messageIds.entries()) {
      const message = (await org.client.GET('/v1/messages/{id}', { params: { path: { id: id } } })).data!.data;
      expect(message).toMatchObject({
        contact_id: [ana, bruno][index]!.id,
        direction: 'outbound',
        type: 'template',
        template: { name: 'welcome_offer', language: 'en_US' },
        status: 'read',
        external_id: sendTo([ana, bruno][index]!)!.id,
        sender: { type: 'broadcast', id: broadcast.id, name: 'Welcome offer' },
      });
    }
    const fromBroadcast = () => events.ofType('message.sent').filter((e) => e.data.object.sender.id === broadcast.id);
    await events.waitFor(() => fromBroadcast().length >= 2);
    expect(
      fromBroadcast()
        .map((e) => e.data.object.id)
        .sort(),
    ).toEqual([...messageIds].sort());
    expect(fromBroadcast().every((e) => e.data.object.sender.type === 'broadcast' && e.data.object.sender.name === 'Welcome offer')).toBe(
      true,
    );
  });

  it('a send the provider refuses fails that recipient with the provider code; the broadcast completes with errors', async () => {
    const { number, template } = await officialWithNotice('Refuses once');
    const trio = await people('refused', 3);
    const broadcast = await noticeBroadcast('One refused', number, template, 'refused');
    await configureNumber(number, { fail_next: [{ mode: 'error', code: 131000, message: 'Something went wrong' }] });
    await launch(org.client, broadcast.id);
    const done = await waitForFinished(org.client, broadcast.id);
    expect(done).toMatchObject({ status: 'completed_with_errors', stats: { total: 3, sent: 2, failed: 1, excluded: 0 } });

    // The first send that reaches the provider is refused: that recipient fails, the two others are delivered.
    const recipients = await recipientsOf(org.client, broadcast.id);
    expect(recipients.map((r) => r.contact.id)).toEqual(trio.map((c) => c.id));
    const failed = recipients.filter((r) => r.status === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      error: { code: '131000', message: expect.stringContaining('Something went wrong') },
      message_id: null,
      sent_at: null,
    });
    expect(recipients.filter((r) => r.status === 'read')).toHaveLength(2);
    const reached = trio.filter((c) => c.id !== failed[0].contact.id).map((c) => digitsOf(c.phone!));
    expect((await sendsOf(number)).map((s) => s.to).sort()).toEqual(reached.sort());
  });

  it('fails the broadcast when every send is refused', async () => {
    const number = await addNumber(org.orgId, 'qrcode', { name: 'Refuses all' });
    await people('blocked', 3);
    const broadcast = await createBroadcast(org.client, {
      name: 'All refused',
      chatappInstanceIds: [number.id],
      audience: { type: 'tags', tags: ['blocked'] },
      message: { type: 'text', content: 'hi' },
    });
    await configureNumber(number, {
      fail_next: Array.from({ length: 3 }, () => ({ mode: 'error', code: 470, message: 'Recipient blocked' })),
    });
    await launch(org.client, broadcast.id);
    const done = await waitForFinished(org.client, broadcast.id);
    expect(done.status).toBe('failed');
    await expectStats(org.client, broadcast.id, { total: 3, sent: 0, delivered: 0, read: 0, failed: 3, excluded: 0 });
    const recipients = await recipientsOf(org.client, broadcast.id);
    expect(recipients.map((r) => [r.status, r.error?.code])).toEqual(Array.from({ length: 3 }, () => ['failed', '470']));
    expect(await sendsOf(number)).toEqual([]);
  });

  it('131042 billing failures arrive after the provider accepted the sends: the recipients fail after sent', async () => {
    const { number, template } = await officialWithNotice('Unbilled');
    const trio = await people('billing', 3);
    await configureNumber(number, { late_billing_failure: true });
    const broadcast = await noticeBroadcast('Unbilled notice', number, template, 'billing');
    await launch(org.client, broadcast.id);
    await waitForFinished(org.client, broadcast.id);

    const recipients = await recipientsOf(org.client, broadcast.id);
    expect(recipients.map((r) => r.contact.id)).toEqual(trio.map((c) => c.id));
    for (const recipient of recipients) {
      expect(recipient).toMatchObject({
        status: 'failed',
        error: { code: '131042' },
        message_id: expect.stringMatching(/^msg_/),
        sent_at: expect.stringMatching(/Z$/),
      });
      expect((await org.client.GET('/v1/messages/{id}', { params: { path: { id: recipient.message_id } } })).data!.data).toMatchObject({
        status: 'failed',
        error: { code: '131042' },
      });
    }
    expect(await sendsOf(number)).toHaveLength(3);
    await expectStats(org.client, broadcast.id, { total: 3, sent: 3, delivered: 0, read: 0, failed: 3, excluded: 0 });
    // Every send failed (catalogue §4.1: failed when every send failed).
    expect((await org.client.GET('/v1/broadcasts/{id}', { params: { path: { id: broadcast.id } } })).data!.data.status).toBe('failed');
  });

  it('waits out the provider’s rate limit and still sends every recipient exactly once', async () => {
    const number = await addNumber(org.orgId, 'qrcode', { name: 'Rate limited' });
    const six = await people('limited', 6);
    await configureNumber(number, { rate_limit: { limit: 2, window_ms: 1_000 } });
    const broadcast = await createBroadcast(org.client, {
      name: 'Limited',
      chatappInstanceIds: [number.id],
      audience: { type: 'tags', tags: ['limited'] },
      message: { type: 'text', content: 'paced' },
      settings: { sendProfile: 'aggressive' },
    });
    await launch(org.client, broadcast.id);
    const done = await waitForFinished(org.client, broadcast.id, 30_000);
    expect(done).toMatchObject({ status: 'completed', stats: { total: 6, sent: 6, failed: 0 } });
    const sends = await sendsOf(number);
    expect(sends.map((s) => s.to).sort()).toEqual(six.map((c) => `${digitsOf(c.phone!)}@c.chatapp`).sort());
    // The limit was really hit: at two per second, the sixth send is two windows after the first.
    expect(Date.parse(sends[5]!.at) - Date.parse(sends[0]!.at)).toBeGreaterThanOrEqual(2_000);
    expect(await recipientsOf(org.client, broadcast.id, { status: 'failed' })).toEqual([]);
  });

  it('completes at once when nobody is left to send to: an empty audience, or one whose contacts are all excluded', async () => {
    const number = await addNumber(org.orgId, 'qrcode', { name: 'Idle QR' });
    await createContactsInOrder(org, [
      { name: 'No number 1', tags: ['unreachable'] },
      { name: 'No number 2', tags: ['unreachable'] },
    ]);
    const body = (name: string, tag: string) => ({
      name,
      chatappInstanceIds: [number.id],
      audience: { type: 'tags', tags: [tag] },
      message: { type: 'text', content: 'nobody' },
    });
    const empty = await createBroadcast(org.client, body('Empty', 'nobody-has-this-tag'));
    await launch(org.client, empty.id);
    expect(await waitForFinished(org.client, empty.id)).toMatchObject({
      status: 'completed',
      stats: { total: 0, sent: 0, delivered: 0, read: 0, failed: 0, excluded: 0 },
    });
    const unreachable = await createBroadcast(org.client, body('Unreachable', 'unreachable'));
    await launch(org.client, unreachable.id);
    expect(await waitForFinished(org.client, unreachable.id)).toMatchObject({
      status: 'completed',
      stats: { total: 0, sent: 0, delivered: 0, read: 0, failed: 0, excluded: 2 },
    });
    expect((await recipientsOf(org.client, unreachable.id)).map((r) => r.exclusion_reason)).toEqual(['no_chatapp', 'no_chatapp']);
    expect(await sendsOf(number)).toEqual([]);
  });

  it('spreads the recipients round robin over the broadcast’s numbers, in send order', async () => {
    const first = await addNumber(org.orgId, 'qrcode', { name: 'Lane one' });
    const second = await addNumber(org.orgId, 'qrcode', { name: 'Lane two' });
    const five = await people('lanes', 5);
    const broadcast = await createBroadcast(org.client, {
      name: 'Two lanes',
      chatappInstanceIds: [first.id, second.id],
      audience: { type: 'tags', tags: ['lanes'] },
      message: { type: 'text', content: 'two lanes' },
      settings: { sendProfile: 'moderate' },
    });
    await launch(org.client, broadcast.id);
    expect(await waitForFinished(org.client, broadcast.id)).toMatchObject({ status: 'completed', stats: { total: 5, sent: 5 } });
    const address = (c: CreatedContact) => `${digitsOf(c.phone!)}@c.chatapp`;
    expect((await sendsOf(first)).map((s) => s.to).sort()).toEqual([five[0]!, five[2]!, five[4]!].map(address).sort());
    expect((await sendsOf(second)).map((s) => s.to).sort()).toEqual([five[1]!, five[3]!].map(address).sort());
  });
});

describe('a 2,000-recipient official broadcast', () => {
  const RECIPIENTS = 2_000;
  const WITHOUT_NUMBER = 10;
  const DUPLICATES = 5;
  let org: TestOrg;
  let number: TestNumber;
  let template: { id: string };
  let phones: string[];

  beforeAll(async () => {
    org = await createTestOrg({ plan: 'pro' });
    number = await addNumber(org.orgId, 'official', { name: 'Bulk official' });
    template = (await addTemplate(org.orgId, number.id, { name: 'bulk_notice', text: 'Hi {{1}}, your order is ready' })) as { id: string };
    const phone = phoneSeries();
    phones = Array.from({ length: RECIPIENTS }, (_, i) => phone(i));
    const started = Date.now();
    await createContactsFast(
      org,
      phones.map((p, i) => ({ name: `Bulk ${i}`, phone: p, tags: ['bulk'] })),
    );
    const extras = await createContactsFast(org, [
      ...Array.from({ length: WITHOUT_NUMBER }, (_, i) => ({ name: `No number ${i}`, tags: ['bulk'] })),
      ...Array.from({ length: DUPLICATES }, (_, i) => ({ name: `Same number ${i}`, tags: ['bulk'] })),
    ]);
    // Created after the originals: their numbers are already reached by older contacts.
    await Promise.all(
      extras
        .slice(WITHOUT_NUMBER)
        .map((contact, i) => setContactChannels(contact.id, { chatapp_jid: `${digitsOf(phones[i]!)}@c.chatapp` })),
    );
    console.log(`2,000-recipient broadcast: ${RECIPIENTS + WITHOUT_NUMBER + DUPLICATES} contacts created in ${Date.now() - started} ms`);
  }, 300_000);

  it('sends each recipient exactly once and ends with exact stats', async () => {
    const events = await eventsOf(org.orgId);
    try {
      const broadcast = await createBroadcast(org.client, {
        name: 'Bulk',
        chatappInstanceIds: [number.id],
        audience: { type: 'tags', tags: ['bulk'] },
        cloudTemplate: {
          templateId: template.id,
          language: 'en_US',
          variables: [{ key: '1', component: 'body', sourceType: 'contact_field', sourceKey: 'first_name', fallback: 'there' }],
        },
        settings: { sendProfile: 'aggressive' },
      });
      const wallStart = Date.now();
      await launch(org.client, broadcast.id);
      const done = await waitForFinished(org.client, broadcast.id, 480_000);
      const wallMs = Date.now() - wallStart;
      const serverMs = Date.parse(done.completed_at) - Date.parse(done.started_at);
      console.log(
        `2,000-recipient broadcast: launch → completed ${serverMs} ms (${Math.round((RECIPIENTS / serverMs) * 1000)} recipients/s); ` +
          `launch → every status applied ${wallMs} ms (${Math.round((RECIPIENTS / wallMs) * 1000)} recipients/s)`,
      );
      expect(done.status).toBe('completed');
      await expectStats(org.client, broadcast.id, {
        total: RECIPIENTS,
        sent: RECIPIENTS,
        delivered: RECIPIENTS,
        read: RECIPIENTS,
        failed: 0,
        excluded: WITHOUT_NUMBER + DUPLICATES,
      });

      const sends = await sendsOf(number);
      expect(sends).toHaveLength(RECIPIENTS);
      expect(new Set(sends.map((s) => s.to)).size).toBe(RECIPIENTS);
      expect(sends.map((s) => s.to).sort()).toEqual(phones.map(digitsOf).sort());
      expect(sends[0]!.body.template.components).toEqual([{ type: 'body', parameters: [text('Bulk')] }]);

      const excluded = await recipientsOf(org.client, broadcast.id, { status: 'excluded' });
      expect(excluded.filter((r) => r.exclusion_reason === 'no_chatapp')).toHaveLength(WITHOUT_NUMBER);
      expect(excluded.filter((r) => r.exclusion_reason === 'duplicate')).toHaveLength(DUPLICATES);
      const page = await org.client.GET('/v1/broadcasts/{id}/recipients', {
        params: { path: { id: broadcast.id }, query: { status: 'read', limit: 1 } },
      });
      expect(page.data!.meta.total).toBe(RECIPIENTS + WITHOUT_NUMBER + DUPLICATES);

      const fromBroadcast = () => events.ofType('message.sent').filter((e) => e.data.object.sender.id === broadcast.id);
      await events.waitFor(() => fromBroadcast().length >= RECIPIENTS, 60_000);
      expect(new Set(fromBroadcast().map((e) => e.data.object.id)).size).toBe(RECIPIENTS);
      expect(fromBroadcast().every((e) => e.data.object.sender.type === 'broadcast' && e.data.object.sender.name === 'Bulk')).toBe(true);
      expect((await listAll(org.client, '/v1/broadcasts')).map((b: { id: string }) => b.id)).toEqual([broadcast.id]);
    } finally {
      await events.stop();
    }
  }, 600_000);
});
