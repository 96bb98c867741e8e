import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver';

let org: TestOrg;
let other: TestOrg;
const receivers: Receiver[] = [];

beforeAll(async () => {
  [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function subscribe(on: TestOrg, events: string[]) {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const created = await on.raw.post('/v1/webhooks', { name: 'replay', url: receiver.url, events });
  expect(created.status, created.text).toBe(201);
  return { receiver, webhookId: created.body.data.id as string };
}

describe('POST /v1/webhooks/{id}/replay', () => {
  it('delivers every missed event of the window once, through the subscription filter, and reports the job', async () => {
    const since = new Date().toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await org.raw.post('/v1/contacts', { name: `Missed ${i}` })).body.data.id);
    for (const id of ids.slice(0, 2)) expect((await org.raw.patch(`/v1/contacts/${id}`, { name: 'Renamed' })).status).toBe(200);
    await eventually(
      async () => {
        const stored = await org.raw.get(`/v1/events?created_after=${encodeURIComponent(since)}&limit=100`);
        return stored.body.data.length >= 7 ? true : undefined;
      },
      15_000,
      'the 7 events stored',
    );

    // Subscribed after the events: it missed all of them.
    const { receiver, webhookId } = await subscribe(org, ['contact.created', 'contact.updated', 'company.created']);
    const key = randomUUID();
    const started = await org.raw.post(
      `/v1/webhooks/${webhookId}/replay`,
      { since, types: ['contact.created'] },
      { headers: { 'idempotency-key': key } },
    );
    expect(started.status, started.text).toBe(202);
    expect(started.body.data).toMatchObject({
      id: expect.stringMatching(/^rpl_/),
      webhook_id: webhookId,
      since,
      types: ['contact.created'],
    });
    const again = await org.raw.post(
      `/v1/webhooks/${webhookId}/replay`,
      { since, types: ['contact.created'] },
      { headers: { 'idempotency-key': key } },
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(started.body.data.id);

    const replayId = started.body.data.id;
    const done = await eventually(
      async () => {
        const replay = await org.raw.get(`/v1/webhooks/${webhookId}/replays/${replayId}`);
        expect(replay.status, replay.text).toBe(200);
        return replay.body.data.status === 'completed' ? replay.body.data : undefined;
      },
      20_000,
      'the replay completed',
    );
    expect(done).toMatchObject({ matched: 5, delivered: 5, failed: 0, completed_at: expect.any(String) });

    const delivered = receiver.ofType('contact.created');
    expect(delivered.map((entry) => entry.event.data.object.id).sort()).toEqual([...ids].sort());
    expect(new Set(delivered.map((entry) => entry.event.id)).size).toBe(5);
    expect(receiver.ofType('contact.updated')).toHaveLength(0);
    const stored = await org.raw.get(`/v1/events/${delivered[0]!.event.id}`);
    const { request_id: _requestId, ...body } = stored.body.data;
    expect(JSON.parse(delivered[0]!.body)).toEqual(body);

    const completion = await eventually(
      async () => {
        const events = await org.raw.get('/v1/events?type=webhook.replay.completed');
        return events.body.data.find((event: any) => event.data.object.id === replayId);
      },
      15_000,
      'webhook.replay.completed',
    );
    expect(completion.data.object).toMatchObject({ status: 'completed', matched: 5, delivered: 5, failed: 0 });
    expect(completion.request_id).toBeNull();

    // A replay of every kind the subscription receives: the 2 updates too, and the 5 creates once more.
    const all = await org.raw.post(`/v1/webhooks/${webhookId}/replay`, { since });
    const second = await eventually(
      async () => {
        const replay = await org.raw.get(`/v1/webhooks/${webhookId}/replays/${all.body.data.id}`);
        return replay.body.data.status === 'completed' ? replay.body.data : undefined;
      },
      20_000,
      'the second replay completed',
    );
    expect(second).toMatchObject({ matched: 7, delivered: 7 });
    expect(receiver.ofType('contact.updated')).toHaveLength(2);
    expect(receiver.ofType('contact.created')).toHaveLength(10);
  });

  it('refuses bad windows, kinds the subscription does not receive, other organizations and missing scopes', async () => {
    const { webhookId } = await subscribe(org, ['contact.created']);
    const now = Date.now();
    const post = (body: unknown, on: TestOrg = org) => on.raw.post(`/v1/webhooks/${webhookId}/replay`, body);
    expect((await post({})).body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [{ field: 'since' }] } });
    expect((await post({ since: 'yesterday' })).body.error.code).toBe('VALIDATION_ERROR');
    const inverted = await post({ since: new Date(now - 1_000).toISOString(), until: new Date(now - 60_000).toISOString() });
    expect(inverted.status).toBe(422);
    expect(inverted.body.error.details.fields[0].field).toBe('until');
    expect((await post({ since: new Date(now + 3_600_000).toISOString() })).body.error.details.fields[0].field).toBe('since');
    const unsubscribed = await post({ since: new Date(now - 60_000).toISOString(), types: ['deal.created'] });
    expect(unsubscribed.status).toBe(422);
    expect(unsubscribed.body.error.details.fields[0].field).toBe('types');
    expect((await post({ since: new Date(now - 60_000).toISOString(), types: ['nope'] })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await post({ since: new Date(now - 60_000).toISOString(), extra: 1 })).body.error.code).toBe('UNKNOWN_FIELDS');

    const theirs = await post({ since: new Date(now - 60_000).toISOString() }, other);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('NOT_FOUND');
    const mine = await post({ since: new Date(now - 60_000).toISOString() });
    expect(mine.status).toBe(202);
    expect((await other.raw.get(`/v1/webhooks/${webhookId}/replays/${mine.body.data.id}`)).status).toBe(404);
    expect((await org.raw.get(`/v1/webhooks/${webhookId}/replays/rpl_0000000000000000000000`)).status).toBe(404);
    expect((await org.raw.get(`/v1/webhooks/${webhookId}/replays/evt_0000000000000000000000`)).body.error.code).toBe('INVALID_ID');
    expect(
      (await org.raw.post('/v1/webhooks/wh_0000000000000000000000/replay', { since: new Date(now - 60_000).toISOString() })).status,
    ).toBe(404);

    const reader = await org.keyWith(['read:webhooks']);
    expect((await reader.raw.post(`/v1/webhooks/${webhookId}/replay`, { since: new Date(now - 60_000).toISOString() })).status).toBe(403);
    expect((await reader.raw.get(`/v1/webhooks/${webhookId}/replays/${mine.body.data.id}`)).status).toBe(200);
    // Replaying sends the kinds' data again: the key needs their read scopes, as to subscribe or redeliver.
    const writerOnly = await org.keyWith(['write:webhooks']);
    const blind = await writerOnly.raw.post(`/v1/webhooks/${webhookId}/replay`, { since: new Date(now - 60_000).toISOString() });
    expect(blind.status).toBe(403);
    expect(blind.body.error.details.missing_scopes).toEqual(['read:contacts']);
  });
});
