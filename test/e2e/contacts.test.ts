import { beforeAll, describe, expect, it } from 'vitest';
import { listAll } from '@crm/client';
import { eventsOf } from '../support/events';
import { setContactChannels, storedContact } from '../support/fixtures';
import { addCustomField, createTestOrg, type TestOrg } from '../support/orgs';
import { createDeal, createFunnel } from '../support/pipelines';

let org: TestOrg;

beforeAll(async () => {
  org = await createTestOrg();
});

const create = async (body: Record<string, unknown>) => {
  const response = await org.raw.post('/v1/contacts', body);
  expect(response.status, response.text).toBe(201);
  return response.body.data;
};

describe('POST /v1/contacts', () => {
  it('creates a contact with the defaults of the spec and normalized fields', async () => {
    const response = await org.client.POST('/v1/contacts', {
      body: {
        name: '  Ada Lovelace ',
        email: 'ADA@Example.com',
        phone: '+14155550100',
        tags: ['vip', 'vip', 'lead'],
      },
    });
    expect(response.response.status).toBe(201);
    expect(response.response.headers.get('x-request-id')).toBe(response.data!.meta.request_id);
    expect(response.data!.meta.request_id).toMatch(/^req_/);
    expect(response.data!.data).toMatchObject({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+14155550100',
      tags: ['vip', 'lead'],
      source: 'api',
      company: null,
      custom_fields: {},
      funnel_stage: null,
      notes_count: 0,
      deals_count: 0,
      photoapp_username: null,
      chatapp_jid: null,
      last_message_at: null,
    });
    expect(response.data!.data.id).toMatch(/^ct_/);
    expect(response.data!.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(response.data!.data).not.toHaveProperty('assigned_to');
  });

  it('refuses a source outside the closed set, a bad phone and a bad e-mail with VALIDATION_ERROR naming each field', async () => {
    const response = await org.raw.post('/v1/contacts', { name: 'X', source: 'site', phone: '555-1234', email: 'nope' });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.type).toBe('unprocessable');
    const fields = response.body.error.details.fields.map((entry: { field: string }) => entry.field).sort();
    expect(fields).toEqual(['email', 'phone', 'source']);
    expect(response.body.error.details.fields.find((entry: { field: string }) => entry.field === 'source').allowed).toContain('manual');
  });

  it('refuses read-only and unknown fields with UNKNOWN_FIELDS listing them, and creates nothing', async () => {
    const before = (await org.client.GET('/v1/contacts')).data!.meta.total;
    const response = await org.raw.post('/v1/contacts', { name: 'X', chatapp_jid: '1@s', assigned_to: 'mb_x', notes_count: 3 });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('UNKNOWN_FIELDS');
    expect(response.body.error.details.fields.sort()).toEqual(['assigned_to', 'chatapp_jid', 'notes_count']);
    expect((await org.client.GET('/v1/contacts')).data!.meta.total).toBe(before);
  });

  it('requires a name', async () => {
    const response = await org.raw.post('/v1/contacts', { email: 'a@b.example' });
    expect(response.status).toBe(422);
    expect(response.body.error.details.fields[0].field).toBe('name');
  });

  it('answers DUPLICATE_CONTACT for an e-mail or phone already on a live contact, and frees them on delete', async () => {
    const first = await create({ name: 'Dup One', email: 'dup@example.com', phone: '+14155550111' });
    const byEmail = await org.client.POST('/v1/contacts', { body: { name: 'Dup Two', email: 'DUP@example.com' } });
    expect(byEmail.response.status).toBe(409);
    expect(byEmail.error!.error).toMatchObject({
      code: 'DUPLICATE_CONTACT',
      type: 'conflict',
      details: { field: 'email', existing_id: first.id },
    });
    const byPhone = await org.client.POST('/v1/contacts', { body: { name: 'Dup Three', phone: '+14155550111' } });
    expect(byPhone.error!.error.details).toEqual({ field: 'phone', existing_id: first.id });

    expect((await org.client.DELETE('/v1/contacts/{id}', { params: { path: { id: first.id } } })).response.status).toBe(204);
    await create({ name: 'Dup Four', email: 'dup@example.com', phone: '+14155550111' });
  });

  it('accepts custom fields that match the active definitions and refuses the others', async () => {
    await addCustomField(org.orgId, { entity: 'contact', key: 'tier', type: 'select', options: ['gold', 'silver'] });
    await addCustomField(org.orgId, { entity: 'contact', key: 'score', type: 'number' });
    await addCustomField(org.orgId, { entity: 'contact', key: 'old_field', type: 'text', is_active: false });
    await addCustomField(org.orgId, { entity: 'company', key: 'employees', type: 'number' });

    const ok = await create({ name: 'Custom', custom_fields: { tier: 'gold', score: 7 } });
    expect(ok.custom_fields).toEqual({ tier: 'gold', score: 7 });

    for (const custom_fields of [{ tier: 'bronze' }, { score: 'seven' }, { old_field: 'x' }, { employees: 3 }]) {
      const refused = await org.raw.post('/v1/contacts', { name: 'Custom', custom_fields });
      expect(refused.status, JSON.stringify(custom_fields)).toBe(422);
      expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    }
    const badKey = await org.client.POST('/v1/contacts', { body: { name: 'Custom', custom_fields: { 'a.b': 1 } } });
    expect(badKey.response.status).toBe(422);
  });
});

describe('GET /v1/contacts/{id}', () => {
  it('returns the extra fields of the detail', async () => {
    const contact = await create({ name: 'Detail Person' });
    const response = await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contact.id } } });
    expect(response.response.status).toBe(200);
    expect(response.data!.data).toMatchObject({ id: contact.id, name: 'Detail Person', messages_count: 0, deals: [] });
  });

  it('answers INVALID_ID for a malformed id and NOT_FOUND for an unknown one', async () => {
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: '123' } } })).error!.error.code).toBe('INVALID_ID');
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: 'co_AAAAAAAAAAAAAAAAAAAAAA' } } })).response.status).toBe(
      400,
    );
    const missing = await org.client.GET('/v1/contacts/{id}', { params: { path: { id: 'ct_AAAAAAAAAAAAAAAAAAAAAA' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error!.error).toMatchObject({ code: 'NOT_FOUND', type: 'not_found' });
  });
});

describe('GET /v1/contacts', () => {
  let people: Array<{ id: string; name: string }>;
  let listOrg: TestOrg;

  beforeAll(async () => {
    listOrg = await createTestOrg();
    people = [];
    const specs = [
      { name: 'bravo Smith', email: 'bravo@alpha.example', phone: '+442071234567', tags: ['vip'], source: 'manual' },
      { name: 'Alpha Jones', email: 'alpha@beta.example', tags: ['vip', 'lead'], source: 'import' },
      { name: 'Charlie Brown', phone: '+5511912345678', tags: ['lead'] },
      { name: 'delta Green', email: 'delta@gamma.example' },
      { name: 'Echo Black', tags: ['VIP'] },
    ];
    for (const spec of specs) {
      const response = await listOrg.raw.post('/v1/contacts', spec);
      people.push(response.body.data);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await setContactChannels(people[0]!.id, { chatapp_jid: '442071234567@s.whatsapp.net' });
    await setContactChannels(people[1]!.id, { photoapp_username: 'alpha.j' });
    await setContactChannels(people[2]!.id, { socialmsg_psid: '9911', socialmsg_name: 'Charlie B' });
  });

  const names = (response: { body: { data: Array<{ name: string }> } }) => response.body.data.map((contact) => contact.name);

  it('orders by created_at descending by default, and by each sort and order', async () => {
    expect(names(await listOrg.raw.get('/v1/contacts'))).toEqual([
      'Echo Black',
      'delta Green',
      'Charlie Brown',
      'Alpha Jones',
      'bravo Smith',
    ]);
    expect(names(await listOrg.raw.get('/v1/contacts?order=asc'))).toEqual([
      'bravo Smith',
      'Alpha Jones',
      'Charlie Brown',
      'delta Green',
      'Echo Black',
    ]);
    // The name sort ignores case.
    expect(names(await listOrg.raw.get('/v1/contacts?sort=name&order=asc'))).toEqual([
      'Alpha Jones',
      'bravo Smith',
      'Charlie Brown',
      'delta Green',
      'Echo Black',
    ]);
    expect(names(await listOrg.raw.get('/v1/contacts?sort=name'))).toEqual([
      'Echo Black',
      'delta Green',
      'Charlie Brown',
      'bravo Smith',
      'Alpha Jones',
    ]);
    await listOrg.client.PATCH('/v1/contacts/{id}', { params: { path: { id: people[2]!.id } }, body: { name: 'Charlie Brown' + ' Jr' } });
    expect(names(await listOrg.raw.get('/v1/contacts?sort=updated_at&limit=1'))).toEqual(['Charlie Brown Jr']);
  });

  it('searches name, e-mail and phone without regard to case', async () => {
    expect(names(await listOrg.raw.get('/v1/contacts?search=ALPHA&sort=name&order=asc'))).toEqual(['Alpha Jones', 'bravo Smith']);
    expect(names(await listOrg.raw.get('/v1/contacts?search=gamma.example'))).toEqual(['delta Green']);
    expect(names(await listOrg.raw.get('/v1/contacts?search=%2B5511'))).toEqual(['Charlie Brown Jr']);
    expect(names(await listOrg.raw.get('/v1/contacts?search=.*'))).toEqual([]);
  });

  it('filters by exact tag, source, channel presence and dates', async () => {
    expect(names(await listOrg.raw.get('/v1/contacts?tag=vip&sort=name&order=asc'))).toEqual(['Alpha Jones', 'bravo Smith']);
    expect(names(await listOrg.raw.get('/v1/contacts?source=import'))).toEqual(['Alpha Jones']);
    expect(names(await listOrg.raw.get('/v1/contacts?has_chatapp=true'))).toEqual(['bravo Smith']);
    expect(names(await listOrg.raw.get('/v1/contacts?has_photoapp=true'))).toEqual(['Alpha Jones']);
    expect(names(await listOrg.raw.get('/v1/contacts?has_socialmsg=true'))).toEqual(['Charlie Brown Jr']);
    expect((await listOrg.client.GET('/v1/contacts', { params: { query: { has_chatapp: 'false' } } })).data!.data).toHaveLength(4);
    const pivot = (await listOrg.client.GET('/v1/contacts/{id}', { params: { path: { id: people[2]!.id } } })).data!.data
      .created_at as string;
    expect(names(await listOrg.raw.get(`/v1/contacts?created_after=${pivot}&order=asc`))).toEqual([
      'Charlie Brown Jr',
      'delta Green',
      'Echo Black',
    ]);
    expect(names(await listOrg.raw.get(`/v1/contacts?created_before=${pivot}&order=asc`))).toEqual(['bravo Smith', 'Alpha Jones']);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await listOrg.client.GET('/v1/contacts', { params: { query: { updated_after: future } } })).data!.data).toEqual([]);
  });

  it('counts the organization without filters in meta.total', async () => {
    const response = await listOrg.client.GET('/v1/contacts', { params: { query: { tag: 'vip' } } });
    expect(response.data!.meta).toMatchObject({ total: 5, has_more: false });
    expect(response.data!.meta).not.toHaveProperty('next_cursor');
  });

  it('pages to the end with opaque cursors, each contact once', async () => {
    const first = await listOrg.client.GET('/v1/contacts', { params: { query: { limit: 2, sort: 'name', order: 'asc' } } });
    expect(first.data!.meta.has_more).toBe(true);
    expect(typeof first.data!.meta.next_cursor).toBe('string');
    const all = await listAll(listOrg.client, '/v1/contacts', { query: { sort: 'name', order: 'asc', limit: 2 } });
    expect(all.map((contact: { name: string }) => contact.name)).toEqual([
      'Alpha Jones',
      'bravo Smith',
      'Charlie Brown Jr',
      'delta Green',
      'Echo Black',
    ]);
    const byDate = await listAll(listOrg.client, '/v1/contacts', { query: { limit: 2 } });
    expect(new Set(byDate.map((contact: { id: string }) => contact.id)).size).toBe(5);
  });

  it('refuses a cursor used with other filters, a forged cursor, and bad limits', async () => {
    const first = await listOrg.raw.get('/v1/contacts?limit=1&tag=vip');
    const cursor = encodeURIComponent(first.body.meta.next_cursor);
    expect(
      (await listOrg.client.GET('/v1/contacts', { params: { query: { limit: 1, tag: 'vip', cursor: cursor } } })).response.status,
    ).toBe(200);
    const otherFilters = await listOrg.client.GET('/v1/contacts', { params: { query: { limit: 1, tag: 'lead', cursor: cursor } } });
    expect(otherFilters.response.status).toBe(400);
    expect(otherFilters.error!.error.code).toBe('INVALID_CURSOR');
    expect((await listOrg.client.GET('/v1/contacts', { params: { query: { cursor: 'abc.def' } } })).error!.error.code).toBe(
      'INVALID_CURSOR',
    );
    expect((await org.client.GET('/v1/contacts', { params: { query: { limit: 1, tag: 'vip', cursor: cursor } } })).error!.error.code).toBe(
      'INVALID_CURSOR',
    );

    for (const limit of ['0', '-1', '2.5', 'ten']) {
      const response = await listOrg.raw.get(`/v1/contacts?limit=${limit}`);
      expect(response.status, limit).toBe(422);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await listOrg.client.GET('/v1/contacts', { params: { query: { limit: 500 } } })).response.status).toBe(200);
    for (const query of ['sort=email', 'order=up', 'has_chatapp=yes', 'created_after=yesterday', 'source=site']) {
      expect((await listOrg.raw.get(`/v1/contacts?${query}`)).body.error?.code, query).toBe('VALIDATION_ERROR');
    }
  });

  it('defaults to 25 per page and clamps larger limits to 100', async () => {
    const bulk = await createTestOrg();
    await Promise.all(Array.from({ length: 30 }, (_, i) => bulk.raw.post('/v1/contacts', { name: `Bulk ${i}` })));
    expect((await bulk.client.GET('/v1/contacts')).data!.data).toHaveLength(25);
    const clamped = await bulk.client.GET('/v1/contacts', { params: { query: { limit: 1000 } } });
    expect(clamped.data!.data).toHaveLength(30);
    expect(clamped.data!.meta.has_more).toBe(false);
  });
});

describe('PATCH /v1/contacts/{id}', () => {
  it('changes only the sent fields; arrays and objects replace', async () => {
    await addCustomField(org.orgId, { entity: 'contact', key: 'nickname', type: 'text' });
    const contact = await create({ name: 'Patchy', email: 'patchy@example.com', tags: ['a', 'b'], custom_fields: { nickname: 'P' } });
    const response = await org.client.PATCH('/v1/contacts/{id}', {
      params: { path: { id: contact.id } },
      body: { phone: '+14155550199', tags: ['c'], custom_fields: {} },
    });
    expect(response.response.status).toBe(200);
    expect(response.data!.data).toMatchObject({
      name: 'Patchy',
      email: 'patchy@example.com',
      phone: '+14155550199',
      tags: ['c'],
      custom_fields: {},
    });
    const cleared = await org.client.PATCH('/v1/contacts/{id}', { params: { path: { id: contact.id } }, body: { email: null } });
    expect(cleared.data!.data.email).toBeNull();
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contact.id } } })).data!.data.email).toBeNull();
  });

  it('refuses channel ids and counters as UNKNOWN_FIELDS and changes nothing', async () => {
    const contact = await create({ name: 'Readonly' });
    const response = await org.raw.patch(`/v1/contacts/${contact.id}`, {
      name: 'Changed',
      chatapp_jid: '1@x',
      socialmsg_psid: '1',
      photoapp_username: 'x',
      deals_count: 9,
    });
    expect(response.status).toBe(422);
    expect(response.body.error.details.fields.sort()).toEqual(['chatapp_jid', 'deals_count', 'photoapp_username', 'socialmsg_psid']);
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contact.id } } })).data!.data.name).toBe('Readonly');
  });

  it('answers PLAN_RESTRICTION for funnel_stage on a plan without the contact funnel, and accepts it on Starter', async () => {
    const free = await createTestOrg({ plan: 'free' });
    const contact = (await free.client.POST('/v1/contacts', { body: { name: 'Free plan' } })).data!.data;
    const refused = await free.client.PATCH('/v1/contacts/{id}', {
      params: { path: { id: contact.id } },
      body: { funnel_stage: 'qualified' },
    });
    expect(refused.response.status).toBe(403);
    expect(refused.error!.error).toMatchObject({ code: 'PLAN_RESTRICTION', type: 'forbidden' });

    const starter = await createTestOrg({ plan: 'starter' });
    const other = (await starter.client.POST('/v1/contacts', { body: { name: 'Starter plan' } })).data!.data;
    const accepted = await starter.client.PATCH('/v1/contacts/{id}', {
      params: { path: { id: other.id } },
      body: { funnel_stage: 'qualified' },
    });
    expect(accepted.data!.data.funnel_stage).toBe('qualified');
  });

  it('answers NOT_FOUND on a deleted contact, INVALID_REFERENCE for an unknown company, INVALID_ID for a malformed one', async () => {
    const contact = await create({ name: 'Gone soon' });
    expect(
      (
        await org.client.PATCH('/v1/contacts/{id}', {
          params: { path: { id: contact.id } },
          body: { company_id: 'co_AAAAAAAAAAAAAAAAAAAAAA' },
        })
      ).error!.error,
    ).toMatchObject({
      code: 'INVALID_REFERENCE',
      details: { field: 'company_id', id: 'co_AAAAAAAAAAAAAAAAAAAAAA' },
    });
    expect(
      (await org.client.PATCH('/v1/contacts/{id}', { params: { path: { id: contact.id } }, body: { company_id: 'nope' } })).error!.error
        .code,
    ).toBe('INVALID_ID');
    await org.client.DELETE('/v1/contacts/{id}', { params: { path: { id: contact.id } } });
    expect(
      (await org.client.PATCH('/v1/contacts/{id}', { params: { path: { id: contact.id } }, body: { name: 'x' } })).response.status,
    ).toBe(404);
  });
});

describe('DELETE /v1/contacts/{id}', () => {
  it('soft-deletes: 204 without body, hidden from read, list and search, record kept', async () => {
    const contact = await create({ name: 'Soft Delete Target', email: 'soft@example.com' });
    const response = await org.client.DELETE('/v1/contacts/{id}', { params: { path: { id: contact.id } } });
    expect(response.response.status).toBe(204);
    expect(await response.response.text()).toBe('');
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contact.id } } })).response.status).toBe(404);
    expect((await org.client.GET('/v1/contacts', { params: { query: { search: 'Soft Delete' } } })).data!.data).toEqual([]);
    const all = await listAll(org.client, '/v1/contacts');
    expect(all.find((item: { id: string }) => item.id === contact.id)).toBeUndefined();
    expect((await storedContact(contact.id))?.deleted_at).toBeInstanceOf(Date);
    expect((await org.client.DELETE('/v1/contacts/{id}', { params: { path: { id: contact.id } } })).response.status).toBe(404);
  });
});

describe('contact tags', () => {
  it('adds tags keeping the existing ones, and removes one by its URL-encoded name', async () => {
    const contact = await create({ name: 'Tagged', tags: ['keep'] });
    const added = await org.client.POST('/v1/contacts/{id}/tags', {
      params: { path: { id: contact.id } },
      body: { tags: ['new one', 'keep', 'ünïcode/tag'] },
    });
    expect(added.response.status).toBe(200);
    expect(added.data!.data.tags).toEqual(['keep', 'new one', 'ünïcode/tag']);
    expect(
      (
        await org.client.DELETE('/v1/contacts/{id}/tags/{tag}', {
          params: { path: { id: contact.id, tag: 'ünïcode/tag' } },
        })
      ).response.status,
    ).toBe(204);
    expect(
      (await org.client.DELETE('/v1/contacts/{id}/tags/{tag}', { params: { path: { id: contact.id, tag: 'absent' } } })).response.status,
    ).toBe(204);
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contact.id } } })).data!.data.tags).toEqual([
      'keep',
      'new one',
    ]);
    expect(
      (await org.client.POST('/v1/contacts/{id}/tags', { params: { path: { id: contact.id } }, body: { tags: [] } })).error!.error.code,
    ).toBe('VALIDATION_ERROR');
    expect((await org.raw.post(`/v1/contacts/${contact.id}/tags`, {})).body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('contact events on Kafka', () => {
  it('publishes created, updated (with previous), tag and deleted events with stable ids', async () => {
    const eventOrg = await createTestOrg();
    const events = await eventsOf(eventOrg.orgId);
    try {
      const contact = (await eventOrg.client.POST('/v1/contacts', { body: { name: 'Evented', tags: ['a'] } })).data!.data;
      await eventOrg.client.PATCH('/v1/contacts/{id}', {
        params: { path: { id: contact.id } },
        body: { name: 'Evented 2', tags: ['a', 'b'] },
      });
      await eventOrg.client.POST('/v1/contacts/{id}/tags', { params: { path: { id: contact.id } }, body: { tags: ['c', 'a'] } });
      await eventOrg.client.DELETE('/v1/contacts/{id}/tags/{tag}', { params: { path: { id: contact.id, tag: 'a' } } });
      await eventOrg.client.DELETE('/v1/contacts/{id}/tags/{tag}', { params: { path: { id: contact.id, tag: 'zzz' } } });
      await eventOrg.client.DELETE('/v1/contacts/{id}', { params: { path: { id: contact.id } } });
      await events.waitFor((received) => received.some((event) => event.type === 'contact.deleted'));
      await new Promise((resolve) => setTimeout(resolve, 300));

      expect(events.received.map((event) => event.type)).toEqual([
        'contact.created',
        'contact.updated',
        'contact.tag.added',
        'contact.tag.added',
        'contact.tag.removed',
        'contact.deleted',
      ]);
      const [created, updated, tagB, tagC, removedA, deleted] = events.received;
      expect(created!.data.object).toMatchObject({ id: contact.id, name: 'Evented', tags: ['a'] });
      expect(updated!.data).toMatchObject({ object: { name: 'Evented 2', tags: ['a', 'b'] }, previous: { name: 'Evented', tags: ['a'] } });
      expect(tagB!.data).toEqual({ contact: { id: contact.id, name: 'Evented 2' }, tag: 'b' });
      expect(tagC!.data.tag).toBe('c');
      expect(removedA!.data.tag).toBe('a');
      expect(deleted!.data).toEqual({ object: { id: contact.id } });
      expect(new Set(events.received.map((event) => event.id)).size).toBe(6);
      for (const event of events.received) {
        expect(event.id).toMatch(/^evt_/);
        expect(event.api_version).toBe('v1');
        expect(event.created_at).toMatch(/Z$/);
      }
    } finally {
      await events.stop();
    }
  });
});

describe('organization isolation', () => {
  it("keeps one organization's contacts invisible to another's key", async () => {
    const other = await createTestOrg();
    const mine = await create({ name: 'Private Person', email: 'private@example.com' });
    expect((await other.client.GET('/v1/contacts/{id}', { params: { path: { id: mine.id } } })).response.status).toBe(404);
    expect(
      (await other.client.PATCH('/v1/contacts/{id}', { params: { path: { id: mine.id } }, body: { name: 'hacked' } })).response.status,
    ).toBe(404);
    expect((await other.client.DELETE('/v1/contacts/{id}', { params: { path: { id: mine.id } } })).response.status).toBe(404);
    expect(
      (await other.client.POST('/v1/contacts/{id}/tags', { params: { path: { id: mine.id } }, body: { tags: ['x'] } })).response.status,
    ).toBe(404);
    expect((await other.client.GET('/v1/contacts', { params: { query: { search: 'Private' } } })).data!.data).toEqual([]);
    // The same e-mail is free in another organization.
    expect((await other.client.POST('/v1/contacts', { body: { name: 'Same mail', email: 'private@example.com' } })).response.status).toBe(
      201,
    );
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: mine.id } } })).data!.data.name).toBe('Private Person');
  });
});

describe('concurrent writes', () => {
  it('loses no tag when many requests add tags at once', async () => {
    const contact = await create({ name: 'Concurrent' });
    const tags = Array.from({ length: 12 }, (_, i) => `t${i}`);
    const responses = await Promise.all(tags.map((tag) => org.raw.post(`/v1/contacts/${contact.id}/tags`, { tags: [tag] })));
    expect(responses.map((response) => response.status)).toEqual(tags.map(() => 200));
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contact.id } } })).data!.data.tags.sort()).toEqual(
      [...tags].sort(),
    );
  });
});

describe('notes_count and deals_count on the contact list', () => {
  it('are exact on the page after notes and deals are created, relinked and deleted', async () => {
    const own = await createTestOrg();
    const contact = async (name: string) => (await own.client.POST('/v1/contacts', { body: { name } })).data!.data.id;
    const [ada, bob] = [await contact('Ada'), await contact('Bob')];
    /** [notes_count, deals_count] of Ada and of Bob, as the list page shows them. */
    const counts = async () => {
      const page = await own.raw.get('/v1/contacts?limit=50');
      expect(page.status, page.text).toBe(200);
      const rows = page.body.data as Array<{ id: string; notes_count: number; deals_count: number }>;
      return [ada, bob].map((id) => rows.filter((row) => row.id === id).map((row) => [row.notes_count, row.deals_count])[0]);
    };
    const notes = [];
    for (let i = 0; i < 3; i++)
      notes.push((await own.raw.post(`/v1/contacts/${ada}/notes`, { content: `note ${i}` })).body.data.id as string);
    const funnel = await createFunnel(own.client);
    const deal = async (title: string, contact_ids: string[]) =>
      (await createDeal(own.client, { title, value: 1, contact_ids, funnel_id: funnel.id })).id as string;
    const [both, adas] = [await deal('Both', [ada, bob]), await deal('Ada only', [ada])];
    expect(await counts()).toEqual([
      [3, 2],
      [0, 1],
    ]);

    expect((await own.raw.delete(`/v1/contacts/${ada}/notes/${notes[0]}`)).status).toBe(204);
    expect((await own.raw.patch(`/v1/deals/${adas}`, { contact_ids: [bob] })).status).toBe(200);
    expect(await counts()).toEqual([
      [2, 1],
      [0, 2],
    ]);

    expect((await own.raw.delete(`/v1/deals/${both}`)).status).toBe(204);
    await own.raw.post(`/v1/contacts/${bob}/notes`, { content: 'first of Bob' });
    expect(await counts()).toEqual([
      [2, 0],
      [1, 1],
    ]);
  });
});
