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

/** The stored events of `on` that satisfy `check`, once they have arrived (the log is written from Kafka). */
async function eventsWhere(on: TestOrg, query: string, check: (events: any[]) => boolean) {
  return eventually(
    async () => {
      const response = await on.raw.get(`/v1/events${query}`);
      expect(response.status, response.text).toBe(200);
      return check(response.body.data) ? response.body : undefined;
    },
    15_000,
    `events ${query}`,
  );
}

describe('GET /v1/events', () => {
  it('keeps every event, whether or not a subscription exists, as exactly the webhook body plus the request that caused it', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    expect((await org.raw.post('/v1/webhooks', { name: 'log', url: receiver.url, events: ['contact.created'] })).status).toBe(201);

    const created = await org.raw.post('/v1/contacts', { name: 'Logged', email: 'logged@events.example', tags: ['a'] });
    const contact = created.body.data;
    const patched = await org.raw.patch(`/v1/contacts/${contact.id}`, { name: 'Logged Again' });
    expect(patched.status).toBe(200);

    const page = await eventsWhere(org, `?object_id=${contact.id}`, (events) => events.length >= 2);
    const [updated, createdEvent] = page.data;
    expect(updated).toMatchObject({ type: 'contact.updated', api_version: 'v1', request_id: patched.body.meta.request_id });
    expect(createdEvent).toMatchObject({ type: 'contact.created', request_id: created.body.meta.request_id });
    expect(createdEvent.data.object).toMatchObject({ id: contact.id, name: 'Logged' });
    expect(Date.parse(updated.created_at)).toBeGreaterThanOrEqual(Date.parse(createdEvent.created_at));
    expect(page.meta).toMatchObject({ has_more: false, request_id: expect.stringMatching(/^req_/) });

    // The same event through the webhook: the stored body is the delivered body, byte for byte.
    const [delivery] = await receiver.waitFor((all) => all.some((entry) => entry.event.id === createdEvent.id), 10_000);
    const { request_id: _requestId, ...body } = createdEvent;
    expect(JSON.parse(delivery!.body)).toEqual(body);

    const one = await org.raw.get(`/v1/events/${createdEvent.id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(createdEvent);
  });

  it('filters by one or several kinds and by time, newest first, with cursor pages', async () => {
    const fresh = await createTestOrg();
    for (let i = 0; i < 3; i++) expect((await fresh.raw.post('/v1/contacts', { name: `P${i}` })).status).toBe(201);
    const company = await fresh.raw.post('/v1/companies', { name: 'Co' });
    expect(company.status).toBe(201);

    const all = await eventsWhere(fresh, '', (events) => events.length >= 4);
    const times = all.data.map((event: { created_at: string }) => Date.parse(event.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(all.meta.total).toBeGreaterThanOrEqual(4);

    const contactsOnly = await fresh.raw.get('/v1/events?type=contact.created');
    expect(contactsOnly.body.data.map((event: { type: string }) => event.type)).toEqual([
      'contact.created',
      'contact.created',
      'contact.created',
    ]);
    const both = await fresh.raw.get('/v1/events?type=contact.created,company.created');
    expect(both.body.data).toHaveLength(4);
    const repeated = await fresh.raw.get('/v1/events?type=company.created&type=contact.created');
    expect(repeated.body.data).toHaveLength(4);

    const newest = all.data[0];
    const before = await fresh.raw.get(`/v1/events?created_before=${encodeURIComponent(newest.created_at)}`);
    expect(before.body.data.map((event: { id: string }) => event.id)).not.toContain(newest.id);
    const after = await fresh.raw.get(`/v1/events?created_after=${encodeURIComponent(newest.created_at)}`);
    expect(after.body.data.map((event: { id: string }) => event.id)).toContain(newest.id);

    const first = await fresh.raw.get('/v1/events?limit=3');
    expect(first.body.data).toHaveLength(3);
    expect(first.body.meta.has_more).toBe(true);
    const second = await fresh.raw.get(`/v1/events?limit=3&cursor=${first.body.meta.next_cursor}`);
    expect(second.body.data).toHaveLength(1);
    expect([...first.body.data, ...second.body.data].map((event: { id: string }) => event.id)).toEqual(
      all.data.map((event: { id: string }) => event.id),
    );
  });

  it('never shows one organization the events of another', async () => {
    const mine = await org.raw.post('/v1/contacts', { name: 'Mine only' });
    const id = mine.body.data.id;
    const [event] = (await eventsWhere(org, `?object_id=${id}`, (events) => events.length >= 1)).data;
    expect((await other.raw.get(`/v1/events/${event.id}`)).status).toBe(404);
    expect((await other.raw.get(`/v1/events/${event.id}`)).body.error.code).toBe('NOT_FOUND');
    expect((await other.raw.get(`/v1/events?object_id=${id}`)).body.data).toEqual([]);
    const theirs = await other.raw.get('/v1/events?limit=100');
    expect(theirs.body.data.map((entry: { id: string }) => entry.id)).not.toContain(event.id);
  });

  it('answers bad input in the envelope and needs read:events', async () => {
    const badType = await org.raw.get('/v1/events?type=contact.created,nope.kind');
    expect(badType.status).toBe(422);
    expect(badType.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { fields: [expect.objectContaining({ field: 'type.1' })] },
    });
    expect((await org.raw.get('/v1/events?created_after=yesterday')).body.error.code).toBe('VALIDATION_ERROR');
    expect((await org.raw.get('/v1/events?limit=0')).body.error.code).toBe('VALIDATION_ERROR');
    expect((await org.raw.get('/v1/events?cursor=garbage')).body.error.code).toBe('INVALID_CURSOR');
    const badId = await org.raw.get('/v1/events/ct_0000000000000000000000');
    expect(badId.status).toBe(400);
    expect(badId.body.error.code).toBe('INVALID_ID');
    expect((await org.raw.get('/v1/events/evt_0000000000000000000000')).status).toBe(404);

    const noScope = await org.keyWith(['read:contacts', 'read:webhooks']);
    const refused = await noScope.raw.get('/v1/events');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPES', missing_scopes: ['read:events'] });
    const scoped = await org.keyWith(['read:events']);
    expect((await scoped.raw.get('/v1/events')).status).toBe(200);
  });

  it("shows a key only the kinds whose records it may read (each kind's read scope, as for subscriptions)", async () => {
    const contact = await org.raw.post('/v1/contacts', { name: 'Scoped Reader' });
    const company = await org.raw.post('/v1/companies', { name: 'Scoped Company' });
    expect(company.status, company.text).toBe(201);
    const [created] = (await eventsWhere(org, `?object_id=${contact.body.data.id}&type=contact.created`, (events) => events.length === 1))
      .data;
    await eventsWhere(org, `?object_id=${company.body.data.id}&type=company.created`, (events) => events.length === 1);

    const companiesOnly = await org.keyWith(['read:events', 'read:companies']);
    const listed = await companiesOnly.raw.get('/v1/events?limit=100');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.length).toBeGreaterThan(0);
    expect(listed.body.data.every((event: { type: string }) => event.type.startsWith('company.'))).toBe(true);
    const named = await companiesOnly.raw.get('/v1/events?type=company.created,contact.created');
    expect(named.status).toBe(403);
    expect(named.body.error.code).toBe('INSUFFICIENT_SCOPES');
    expect(named.body.error.details.missing_scopes).toEqual(['read:contacts']);
    const one = await companiesOnly.raw.get(`/v1/events/${created.id}`);
    expect(one.status).toBe(403);
    expect(one.body.error.details.missing_scopes).toEqual(['read:contacts']);
    // A key that reads no kind lists nothing.
    const none = await org.keyWith(['read:events']);
    expect((await none.raw.get('/v1/events')).body.data).toEqual([]);
  });
});
