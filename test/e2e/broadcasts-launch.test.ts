import { beforeAll, describe, expect, it } from 'vitest';
import {
  addWarmupNumber,
  createBroadcast,
  createContactsFast,
  digitsOf,
  launch,
  recipientsOf,
  sendsOf,
  sleep,
  waitForBroadcast,
  waitForFinished,
  waitForSends,
  type CreatedContact,
} from '../support/broadcasts';
import { addNumber, addTemplate, configureNumber, eventually, sim, uniquePhone, type TestNumber, sendChatText } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';

const inAMonth = () => new Date(Date.now() + 30 * 24 * 3_600_000).toISOString();
/** QR-code numbers send 4 messages/s each in the test system (conservative profile): 20 recipients take 5 s. */
const CROWD = 20;

describe('launching a broadcast: checks, schedule, pause, resume, cancel (#64–#68)', () => {
  let org: TestOrg;
  let qr: TestNumber;
  let official: TestNumber;
  let crowd: CreatedContact[];

  const qrBroadcast = (name: string, numbers: TestNumber[], extra: Record<string, unknown> = {}) =>
    createBroadcast(org.client, {
      name,
      chatappInstanceIds: numbers.map((n) => n.id),
      audience: { type: 'tags', tags: ['crowd'] },
      message: { type: 'text', content: `${name}: hello` },
      ...extra,
    });
  const action = (id: string, verb: string, body?: unknown) => org.raw.post(`/v1/broadcasts/${id}/${verb}`, body);
  const statusOf = async (id: string) =>
    (await org.client.GET('/v1/broadcasts/{id}', { params: { path: { id: id } } })).data!.data.status as string;
  const instanceStatus = async (number: TestNumber) =>
    (await org.client.GET('/v1/chatapp-instances/{id}', { params: { path: { id: number.id } } })).data!.data.status as string;
  async function setConnected(number: TestNumber, connected: boolean) {
    await configureNumber(number, { connected });
    await eventually(
      `${number.ref} ${connected ? 'connected' : 'disconnected'}`,
      async () => (await instanceStatus(number)) === (connected ? 'connected' : 'disconnected'),
    );
  }
  const crowdAddresses = () => crowd.map((c) => `${digitsOf(c.phone!)}@c.chatapp`).sort();

  beforeAll(async () => {
    org = await createTestOrg();
    qr = await addNumber(org.orgId, 'qrcode', { name: 'QR' });
    official = await addNumber(org.orgId, 'official', { name: 'Official' });
    await addTemplate(org.orgId, official.id, { name: 'seasonal', category: 'marketing', text: 'Season greetings' });
    crowd = await createContactsFast(
      org,
      Array.from({ length: CROWD }, (_, i) => ({ name: `Crowd ${i}`, phone: uniquePhone(), tags: ['crowd'] })),
    );
  });

  it('refuses to launch without content: MISSING_MESSAGE (QR code), MISSING_CLOUD_TEMPLATE and TEMPLATE_NOT_APPROVED (official)', async () => {
    const noMessage = await createBroadcast(org.client, {
      name: 'No message',
      chatappInstanceIds: [qr.id],
      audience: { type: 'tags', tags: ['crowd'] },
    });
    const missing = await action(noMessage.id, 'launch', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'MISSING_MESSAGE', type: 'invalid_request' });
    expect((await action(noMessage.id, 'schedule', { scheduledAt: inAMonth() })).body.error.code).toBe('MISSING_MESSAGE');
    expect((await action(noMessage.id, 'launch', { confirmWarmupOverride: true, now: true })).body.error).toMatchObject({
      code: 'UNKNOWN_FIELDS',
      details: { fields: ['now'] },
    });
    expect(await statusOf(noMessage.id)).toBe('draft');

    const noTemplate = await createBroadcast(org.client, {
      name: 'No template',
      chatappInstanceIds: [official.id],
      audience: { type: 'tags', tags: ['crowd'] },
    });
    const noCloud = await action(noTemplate.id, 'launch');
    expect(noCloud.status).toBe(422);
    expect(noCloud.body.error).toMatchObject({ code: 'MISSING_CLOUD_TEMPLATE', type: 'unprocessable' });
    expect(await statusOf(noTemplate.id)).toBe('draft');

    // Approved when the broadcast was made, paused by the provider since.
    const seasonal = (
      await org.client.GET('/v1/chatapp-instances/{id}/templates', { params: { path: { id: official.id }, query: { name: 'seasonal' } } })
    ).data!.data[0]!;
    const paused = await createBroadcast(org.client, {
      name: 'Paused template',
      chatappInstanceIds: [official.id],
      audience: { type: 'tags', tags: ['crowd'] },
      cloudTemplate: { templateId: seasonal.id, language: 'en_US' },
    });
    expect(
      (await sim('templates', { channel: 'official', to_number: official.ref, name: 'seasonal', language: 'en_US', status: 'PAUSED' }))
        .status,
    ).toBe(200);
    await eventually(
      'template paused',
      async () =>
        (
          await org.client.GET('/v1/chatapp-instances/{id}/templates', {
            params: { path: { id: official.id }, query: { name: 'seasonal' } },
          })
        ).data!.data[0]?.status === 'PAUSED',
    );
    const notApproved = await action(paused.id, 'launch');
    expect(notApproved.status).toBe(422);
    expect(notApproved.body.error.code).toBe('TEMPLATE_NOT_APPROVED');
    expect(await statusOf(paused.id)).toBe('draft');
    expect(await sendsOf(official)).toEqual([]);
    expect(await sendsOf(qr)).toEqual([]);
  });

  it('refuses CHANNEL_DISCONNECTED (409) while one of its numbers is offline, and launches once it is back', async () => {
    const down = await addNumber(org.orgId, 'qrcode', { name: 'Flaky QR' });
    const broadcast = await createBroadcast(org.client, {
      name: 'Two numbers',
      chatappInstanceIds: [qr.id, down.id],
      audience: { type: 'contacts', contactIds: crowd.slice(0, 2).map((c) => c.id) },
      message: { type: 'text', content: 'hi' },
    });
    await setConnected(down, false);
    const refused = await action(broadcast.id, 'launch', {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CHANNEL_DISCONNECTED', type: 'conflict' });
    expect((await action(broadcast.id, 'schedule', { scheduledAt: inAMonth() })).body.error.code).toBe('CHANNEL_DISCONNECTED');
    expect(await statusOf(broadcast.id)).toBe('draft');

    await setConnected(down, true);
    const launched = await launch(org.client, broadcast.id);
    expect(launched).toMatchObject({ id: broadcast.id, status: 'processing', started_at: expect.stringMatching(/Z$/), completed_at: null });
    const done = await waitForFinished(org.client, broadcast.id);
    expect(done).toMatchObject({ status: 'completed', stats: { total: 2, sent: 2, failed: 0 }, completed_at: expect.stringMatching(/Z$/) });
    // One recipient each, round robin: the second in send order went out from the second number.
    const [, second] = await recipientsOf(org.client, broadcast.id);
    const phone = crowd.find((c) => c.id === second.contact.id)!.phone!;
    expect((await sendsOf(down)).map((s) => s.to)).toEqual([`${digitsOf(phone)}@c.chatapp`]);
  });

  it('answers INVALID_STATUS for actions the status does not allow', async () => {
    const draft = await qrBroadcast('Draft actions', [qr]);
    for (const verb of ['pause', 'resume', 'cancel']) {
      const response = await action(draft.id, verb);
      expect(response.status, verb).toBe(422);
      expect(response.body.error).toMatchObject({ code: 'INVALID_STATUS', type: 'unprocessable' });
    }
    const cancelled = await qrBroadcast('Cancelled actions', [qr]);
    expect((await action(cancelled.id, 'schedule', { scheduledAt: inAMonth() })).status).toBe(200);
    expect((await action(cancelled.id, 'cancel')).body.data).toMatchObject({
      status: 'cancelled',
      completed_at: expect.stringMatching(/Z$/),
    });
    for (const [verb, body] of [
      ['launch', {}],
      ['schedule', { scheduledAt: inAMonth() }],
      ['pause'],
      ['resume', {}],
      ['cancel'],
    ] as const) {
      expect((await action(cancelled.id, verb, body)).body.error?.code, verb).toBe('INVALID_STATUS');
    }
    expect(await statusOf(cancelled.id)).toBe('cancelled');
  });

  it('warm-up: refuses WARMUP_LIMIT_EXCEEDED when its share plus 24 h of sends passes the daily limit, unless confirmed', async () => {
    const warm = await addWarmupNumber(org.orgId, 'qrcode', 4, 'Warm QR');
    const helper = await addNumber(org.orgId, 'qrcode', { name: 'Helper QR' });
    const five = crowd.slice(0, 5);
    const config = (name: string) => ({
      name,
      chatappInstanceIds: [warm.id, helper.id],
      audience: { type: 'contacts', contactIds: five.map((c) => c.id) },
      message: { type: 'text', content: 'warm' },
    });
    // Five recipients over two numbers: 3 for the warm one, within its limit of 4.
    const within = await createBroadcast(org.client, config('Within'));
    expect((await action(within.id, 'schedule', { scheduledAt: inAMonth() })).status).toBe(200);
    expect((await action(within.id, 'cancel')).status).toBe(200);

    // Two messages sent from it today: 3 + 2 > 4.
    for (const contact of five.slice(0, 2)) {
      const sent = await sendChatText(org.client, contact.id, warm.id, 'direct');
      expect(sent.response.status, JSON.stringify(sent.error)).toBe(201);
    }
    const over = await createBroadcast(org.client, config('Over'));
    for (const [verb, body] of [
      ['launch', {}],
      ['launch', { confirmWarmupOverride: false }],
      ['schedule', { scheduledAt: inAMonth() }],
    ] as const) {
      const refused = await action(over.id, verb, body);
      expect(refused.status, verb).toBe(422);
      expect(refused.body.error).toMatchObject({
        code: 'WARMUP_LIMIT_EXCEEDED',
        type: 'unprocessable',
        details: { instances: [{ id: warm.id, daily_limit: 4, volume: 5 }] },
      });
    }
    expect((await action(over.id, 'launch', { confirmWarmupOverride: 'yes' })).body.error.code).toBe('VALIDATION_ERROR');
    expect(await statusOf(over.id)).toBe('draft');
    expect(await sendsOf(warm)).toHaveLength(2);

    await launch(org.client, over.id, { confirmWarmupOverride: true });
    expect(await waitForFinished(org.client, over.id)).toMatchObject({ status: 'completed', stats: { total: 5, sent: 5 } });
    expect(await sendsOf(warm)).toHaveLength(5);
    expect(await sendsOf(helper)).toHaveLength(2);
  });

  it('warm-up on resume: what is left plus what was sent in 24 h; confirmWarmupOverride forces it', async () => {
    const warm = await addWarmupNumber(org.orgId, 'qrcode', CROWD, 'Warm QR 2');
    const broadcast = await qrBroadcast('Warm resume', [warm]);
    await launch(org.client, broadcast.id);
    await waitForSends(warm, 3);
    expect((await action(broadcast.id, 'pause')).status).toBe(200);
    // Two more messages from the number: everything it sent plus what is left is now CROWD + 2.
    for (const contact of crowd.slice(0, 2)) {
      expect((await sendChatText(org.client, contact.id, warm.id, 'direct')).response.status).toBe(201);
    }
    const refused = await action(broadcast.id, 'resume', {});
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'WARMUP_LIMIT_EXCEEDED',
      details: { instances: [{ id: warm.id, daily_limit: CROWD, volume: CROWD + 2 }] },
    });
    expect(await statusOf(broadcast.id)).toBe('paused');

    const resumed = await action(broadcast.id, 'resume', { confirmWarmupOverride: true });
    expect(resumed.status, resumed.text).toBe(202);
    expect(await waitForFinished(org.client, broadcast.id)).toMatchObject({ status: 'completed', stats: { total: CROWD, sent: CROWD } });
    const toCrowd = (await sendsOf(warm)).filter((s) => s.body.text === 'Warm resume: hello');
    expect(toCrowd.map((s) => s.to).sort()).toEqual(crowdAddresses());
  });

  it('schedule: only in the future; launches by itself at scheduledAt; can be moved and launched early', async () => {
    const broadcast = await qrBroadcast('Scheduled', [qr], {
      audience: { type: 'contacts', contactIds: crowd.slice(0, 2).map((c) => c.id) },
    });
    const fieldOf = async (body: unknown) => {
      const response = await action(broadcast.id, 'schedule', body);
      expect(response.status, response.text).toBe(422);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      return response.body.error.details.fields[0].field;
    };
    expect(await fieldOf({ scheduledAt: new Date(Date.now() - 60_000).toISOString() })).toBe('scheduledAt');
    expect(await fieldOf({})).toBe('scheduledAt');
    expect(await fieldOf({ scheduledAt: 'tomorrow' })).toBe('scheduledAt');
    expect(await fieldOf({ scheduledAt: new Date(Date.now() + 400 * 24 * 3_600_000).toISOString() })).toBe('scheduledAt');
    expect((await action(broadcast.id, 'schedule', { scheduledAt: inAMonth(), when: 'now' })).body.error.code).toBe('UNKNOWN_FIELDS');
    expect(await statusOf(broadcast.id)).toBe('draft');

    const first = await action(broadcast.id, 'schedule', { scheduledAt: inAMonth() });
    expect(first.body.data.status).toBe('scheduled');
    const sendsBefore = (await sendsOf(qr)).length;
    const at = new Date(Date.now() + 2_000).toISOString();
    const moved = await action(broadcast.id, 'schedule', { scheduledAt: at });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ status: 'scheduled', scheduled_at: at, started_at: null });

    const done = await waitForFinished(org.client, broadcast.id, 20_000);
    expect(done).toMatchObject({ status: 'completed', scheduled_at: at, stats: { total: 2, sent: 2 } });
    // Not before its time, and not at some later check either.
    expect(Date.parse(done.started_at)).toBeGreaterThanOrEqual(Date.parse(at));
    expect(Date.parse(done.started_at) - Date.parse(at)).toBeLessThan(5_000);
    const sends = (await sendsOf(qr)).slice(sendsBefore).filter((s) => s.body.text === 'Scheduled: hello');
    expect(sends).toHaveLength(2);
    expect(sends.every((s) => Date.parse(s.at) >= Date.parse(at))).toBe(true);

    // A scheduled broadcast can be launched at once.
    const early = await qrBroadcast('Early', [qr], { audience: { type: 'contacts', contactIds: [crowd[0]!.id] } });
    await action(early.id, 'schedule', { scheduledAt: inAMonth() });
    expect((await launch(org.client, early.id)).status).toBe('processing');
    expect(await waitForFinished(org.client, early.id)).toMatchObject({ status: 'completed', stats: { total: 1, sent: 1 } });
  });

  it('a scheduled broadcast whose number went offline before its time fails with CHANNEL_DISCONNECTED and sends nothing', async () => {
    const offline = await addNumber(org.orgId, 'qrcode', { name: 'Goes offline' });
    const broadcast = await qrBroadcast('Doomed', [offline]);
    const at = new Date(Date.now() + 2_000).toISOString();
    expect((await action(broadcast.id, 'schedule', { scheduledAt: at })).status).toBe(200);
    await setConnected(offline, false);

    const failed = await waitForBroadcast(org.client, broadcast.id, 'failed', (b) => b.status !== 'scheduled', 20_000);
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: 'CHANNEL_DISCONNECTED', message: expect.any(String) },
      completed_at: expect.stringMatching(/Z$/),
    });
    expect(await recipientsOf(org.client, broadcast.id)).toEqual([]);
    expect(await sendsOf(offline)).toEqual([]);
    expect((await action(broadcast.id, 'launch', {})).body.error.code).toBe('INVALID_STATUS');
  });

  it('checks the warm-up again at the scheduled time: a number that sent too much since fails the broadcast', async () => {
    const warm = await addWarmupNumber(org.orgId, 'qrcode', 3, 'Warm scheduled');
    const two = crowd.slice(0, 2);
    const broadcast = await qrBroadcast('Warm scheduled', [warm], { audience: { type: 'contacts', contactIds: two.map((c) => c.id) } });
    const at = new Date(Date.now() + 2_500).toISOString();
    expect((await action(broadcast.id, 'schedule', { scheduledAt: at })).status).toBe(200);
    // Two direct messages before the time: 2 + 2 > 3.
    for (const contact of two) {
      const sent = await sendChatText(org.client, contact.id, warm.id, 'direct');
      expect(sent.response.status, JSON.stringify(sent.error)).toBe(201);
    }
    const failed = await waitForBroadcast(org.client, broadcast.id, 'failed', (b) => b.status !== 'scheduled', 20_000);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'WARMUP_LIMIT_EXCEEDED' } });
    expect(await sendsOf(warm)).toHaveLength(2);
  });

  it('two launches at once: one is accepted, the other answers INVALID_STATUS, and each recipient gets one message', async () => {
    const number = await addNumber(org.orgId, 'qrcode', { name: 'Raced QR' });
    const three = crowd.slice(0, 3);
    const broadcast = await qrBroadcast('Raced', [number], {
      audience: { type: 'contacts', contactIds: three.map((c) => c.id) },
      settings: { sendProfile: 'aggressive' },
    });
    const answers = await Promise.all([action(broadcast.id, 'launch', {}), action(broadcast.id, 'launch', {})]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 422]);
    expect(answers.find((a) => a.status === 422)?.body.error.code).toBe('INVALID_STATUS');
    expect(await waitForFinished(org.client, broadcast.id)).toMatchObject({ status: 'completed', stats: { total: 3, sent: 3 } });
    expect((await sendsOf(number)).map((s) => s.to).sort()).toEqual(three.map((c) => `${digitsOf(c.phone!)}@c.chatapp`).sort());
  });

  it('pause stops sending within a second, nothing is lost, and resume sends every remaining recipient once', async () => {
    const number = await addNumber(org.orgId, 'qrcode', { name: 'Pausing QR' });
    const broadcast = await qrBroadcast('Paused', [number]);
    await launch(org.client, broadcast.id);
    await waitForSends(number, 3);
    const paused = await action(broadcast.id, 'pause');
    expect(paused.status).toBe(200);
    expect(paused.body.data.status).toBe('paused');
    expect((await action(broadcast.id, 'pause')).body.error.code).toBe('INVALID_STATUS');

    await sleep(1_000);
    const afterASecond = (await sendsOf(number)).length;
    await sleep(1_500);
    expect((await sendsOf(number)).length).toBe(afterASecond);
    expect(afterASecond).toBeLessThan(CROWD);
    const pending = await recipientsOf(org.client, broadcast.id, { status: 'pending' });
    expect(pending).toHaveLength(CROWD - afterASecond);
    expect(await statusOf(broadcast.id)).toBe('paused');

    const resumed = await action(broadcast.id, 'resume');
    expect(resumed.status).toBe(202);
    expect(resumed.body.data.status).toBe('processing');
    const done = await waitForFinished(org.client, broadcast.id);
    expect(done).toMatchObject({ status: 'completed', error: null, stats: { total: CROWD, sent: CROWD, failed: 0 } });
    const sends = await sendsOf(number);
    expect(sends).toHaveLength(CROWD);
    expect(sends.map((s) => s.to).sort()).toEqual(crowdAddresses());
  });

  it('cancel stops sending for good; recipients not yet sent stay pending', async () => {
    const number = await addNumber(org.orgId, 'qrcode', { name: 'Cancelling QR' });
    const broadcast = await qrBroadcast('Cancelled midway', [number]);
    await launch(org.client, broadcast.id);
    await waitForSends(number, 3);
    const cancelled = await action(broadcast.id, 'cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', completed_at: expect.stringMatching(/Z$/) });

    await sleep(1_000);
    const sent = (await sendsOf(number)).length;
    await sleep(1_500);
    expect((await sendsOf(number)).length).toBe(sent);
    expect(sent).toBeLessThan(CROWD);
    const recipients = await recipientsOf(org.client, broadcast.id);
    expect(recipients).toHaveLength(CROWD);
    expect(recipients.filter((r) => r.status === 'pending')).toHaveLength(CROWD - sent);
    expect(recipients.filter((r) => r.status === 'pending').every((r) => r.message_id === null && r.sent_at === null)).toBe(true);
    expect(await statusOf(broadcast.id)).toBe('cancelled');
    expect((await action(broadcast.id, 'resume')).body.error.code).toBe('INVALID_STATUS');
  });

  it('a number that disconnects mid-send pauses the broadcast with CHANNEL_DISCONNECTED; it resumes once reconnected', async () => {
    const number = await addNumber(org.orgId, 'qrcode', { name: 'Drops QR' });
    const broadcast = await qrBroadcast('Interrupted', [number]);
    await launch(org.client, broadcast.id);
    await waitForSends(number, 3);
    await setConnected(number, false);

    const paused = await waitForBroadcast(org.client, broadcast.id, 'paused by the disconnect', (b) => b.status === 'paused');
    expect(paused.error).toMatchObject({ code: 'CHANNEL_DISCONNECTED', message: expect.any(String) });
    const refused = await action(broadcast.id, 'resume', {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CHANNEL_DISCONNECTED');
    // Nobody failed: the recipient the number could not take waits with the others.
    expect(await recipientsOf(org.client, broadcast.id, { status: 'failed' })).toEqual([]);

    await setConnected(number, true);
    expect((await action(broadcast.id, 'resume', {})).status).toBe(202);
    const done = await waitForFinished(org.client, broadcast.id);
    expect(done).toMatchObject({ status: 'completed', error: null, stats: { total: CROWD, sent: CROWD, failed: 0 } });
    const sends = await sendsOf(number);
    expect(sends).toHaveLength(CROWD);
    expect(sends.map((s) => s.to).sort()).toEqual(crowdAddresses());
  });
});
