import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAll, type RequestBody } from '@crm/client';
import { distinctEvents } from '../support/distinct-events';
import { eventsOf, type EventLog } from '../support/events';
import { addCustomField, createTestOrg, type TestOrg } from '../support/orgs';
import { createDeal, createFunnel } from '../support/pipelines';
import { deleteRawDeal, insertRawDeal } from '../support/raw-records';

const MALFORMED = 'co_123';
const ABSENT = 'co_0000000000000000000000';

describe('companies: a sales team keeps its accounts', () => {
  let org: TestOrg;
  let other: TestOrg;
  let events: EventLog;

  beforeAll(async () => {
    [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
    events = await eventsOf(org.orgId);
  });
  afterAll(async () => {
    await events.stop();
  });

  const create = (body: Record<string, unknown>, client = org.raw) => client.post('/v1/companies', body);

  it('creates a company with every field, renders assigned_to and zero counters, and emits company.created', async () => {
    const [owner] = org.memberIds;
    const response = await create({
      name: 'Acme Corp',
      email: 'Sales@Acme.example',
      phone: '+14155550100',
      website: 'https://acme.example',
      sector: 'Industrial Machinery',
      size: '51-200',
      city: 'Springfield',
      state: 'IL',
      assigned_to: owner,
      tags: ['vip', 'vip', 'manufacturing'],
    });
    expect(response.status).toBe(201);
    const company = response.body.data;
    expect(company).toMatchObject({
      name: 'Acme Corp',
      email: 'sales@acme.example',
      size: '51-200',
      assigned_to: { id: owner, name: 'Owner Person' },
      tags: ['vip', 'manufacturing'],
      custom_fields: {},
      contacts_count: 0,
      deals_count: 0,
      total_deals_value: 0,
    });
    expect(company.id).toMatch(/^co_/);
    expect(response.body.meta.request_id).toBeTruthy();

    const read = await org.client.GET('/v1/companies/{id}', { params: { path: { id: company.id } } });
    expect(read.response.status).toBe(200);
    expect(read.data!.data).toEqual(company);

    const [event] = await events.waitFor((received) =>
      received.some((e) => e.type === 'company.created' && e.data.object.id === company.id),
    );
    expect(event).toBeDefined();
    expect(events.ofType('company.created').find((e) => e.data.object.id === company.id)?.data).toEqual({ object: company });
  });

  it('fills nullable fields with null on a minimal create', async () => {
    const response = await create({ name: 'Minimal' });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      email: null,
      phone: null,
      website: null,
      sector: null,
      size: null,
      city: null,
      state: null,
      assigned_to: null,
      tags: [],
    });
  });

  it('refuses bad bodies with the catalogue codes and writes nothing', async () => {
    const before = (await org.client.GET('/v1/companies', { params: { query: { limit: 1 } } })).data!.meta.total;

    const unknown = await create({ name: 'X', contacts_count: 3, foo: 1 });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('UNKNOWN_FIELDS');
    expect(unknown.body.error.details.fields.sort()).toEqual(['contacts_count', 'foo']);

    const missing = await create({ email: 'a@b.example' });
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe('VALIDATION_ERROR');
    expect(missing.body.error.details.fields[0].field).toBe('name');

    for (const body of [{ name: 42 }, { name: 'X', size: '10-20' }, { name: 'X', tags: 'vip' }, { name: 'X', email: 'not-an-email' }]) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    }

    const badId = await create({ name: 'X', assigned_to: 'mb_nope' });
    expect(badId.status).toBe(400);
    expect(badId.body.error.code).toBe('INVALID_ID');

    const foreignMember = other.memberIds[0] ?? '';
    const foreign = await create({ name: 'X', assigned_to: foreignMember });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'assigned_to', id: foreignMember } });

    const notJson = await org.raw.request('POST', '/v1/companies', {
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('INVALID_JSON');

    expect((await org.client.GET('/v1/companies', { params: { query: { limit: 1 } } })).data!.meta.total).toBe(before);
  });

  it('validates company custom fields against the definitions', async () => {
    await addCustomField(org.orgId, { entity: 'company', key: 'employees', type: 'number' });
    const ok = await create({ name: 'With fields', custom_fields: { employees: 120 } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.custom_fields).toEqual({ employees: 120 });

    const wrongType = await create({ name: 'Bad field', custom_fields: { employees: 'many' } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.error.code).toBe('VALIDATION_ERROR');
    const unknownKey = await create({ name: 'Bad field', custom_fields: { nope: 1 } });
    expect(unknownKey.status).toBe(422);
    expect(unknownKey.body.error.details.fields[0].field).toBe('custom_fields.nope');
  });

  it('answers INVALID_ID and NOT_FOUND on the path, and hides other organizations', async () => {
    const mine = (await create({ name: 'Hidden' })).body.data;
    expect((await org.client.GET('/v1/companies/{id}', { params: { path: { id: MALFORMED } } })).error!.error.code).toBe('INVALID_ID');
    expect((await org.client.GET('/v1/companies/{id}', { params: { path: { id: ABSENT } } })).response.status).toBe(404);
    for (const [method, path] of [
      ['GET', `/v1/companies/${mine.id}`],
      ['PATCH', `/v1/companies/${mine.id}`],
      ['DELETE', `/v1/companies/${mine.id}`],
      ['GET', `/v1/companies/${mine.id}/contacts`],
    ] as const) {
      const response = await other.raw.request(method, path, method === 'PATCH' ? { body: { name: 'Stolen' } } : {});
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    expect((await org.client.GET('/v1/companies/{id}', { params: { path: { id: mine.id } } })).data!.data.name).toBe('Hidden');
    const foreignList = await listAll(other.client, '/v1/companies');
    expect(foreignList.map((company) => company.id)).not.toContain(mine.id);
  });
});

describe('companies: list filters', () => {
  let org: TestOrg;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    org = await createTestOrg();
    const [owner, seller] = org.memberIds;
    const rows = [
      {
        name: 'Globex Corporation',
        email: 'hello@globex.example',
        sector: 'Software Development',
        size: '500+',
        tags: ['enterprise'],
        assigned_to: owner,
      },
      { name: 'Initech', phone: '+14155550199', sector: 'software', size: '11-50', tags: ['smb', 'Enterprise'], assigned_to: seller },
      { name: 'Umbrella', email: 'info@umbrella.example', sector: 'Pharma', size: '11-50', tags: ['enterprise'] },
    ];
    for (const row of rows) {
      const response = await org.client.POST('/v1/companies', { body: row as RequestBody<'/v1/companies', 'post'> });
      expect(response.response.status).toBe(201);
      ids[row.name] = response.data!.data.id;
    }
  });

  const names = async (query: string) => {
    const response = await org.raw.get(`/v1/companies?${query}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.meta.total).toBe(3);
    return (response.body.data as Array<{ name: string }>).map((company) => company.name).sort();
  };

  it('search matches name, e-mail or phone, case-insensitively', async () => {
    expect(await names('search=GLOBEX')).toEqual(['Globex Corporation']);
    expect(await names('search=umbrella.EXAMPLE')).toEqual(['Umbrella']);
    expect(await names('search=5550199')).toEqual(['Initech']);
    expect(await names('search=.*')).toEqual([]);
  });

  it('tag is exact, sector partial and case-insensitive, size and assigned_to exact', async () => {
    expect(await names('tag=enterprise')).toEqual(['Globex Corporation', 'Umbrella']);
    expect(await names('tag=enter')).toEqual([]);
    expect(await names('sector=SOFTWARE')).toEqual(['Globex Corporation', 'Initech']);
    expect(await names('sector=harm')).toEqual(['Umbrella']);
    expect(await names('size=11-50')).toEqual(['Initech', 'Umbrella']);
    expect(await names(`assigned_to=${org.memberIds[1]}`)).toEqual(['Initech']);
    expect(await names('size=11-50&tag=enterprise')).toEqual(['Umbrella']);
  });

  it('refuses bad query values', async () => {
    const size = await org.raw.get('/v1/companies?size=huge');
    expect(size.status).toBe(422);
    expect(size.body.error.code).toBe('VALIDATION_ERROR');
    expect((await org.client.GET('/v1/companies', { params: { query: { assigned_to: 'mb_x' } } })).error!.error.code).toBe('INVALID_ID');
    expect((await org.client.GET('/v1/companies', { params: { query: { limit: 0 } } })).error!.error.code).toBe('VALIDATION_ERROR');
    expect((await org.client.GET('/v1/companies', { params: { query: { cursor: 'garbage' } } })).error!.error.code).toBe('INVALID_CURSOR');
  });

  it('pages newest first with cursors', async () => {
    const first = await org.client.GET('/v1/companies', { params: { query: { limit: 2 } } });
    expect(first.data!.data.map((c: { name: string }) => c.name)).toEqual(['Umbrella', 'Initech']);
    expect(first.data!.meta).toMatchObject({ total: 3, has_more: true });
    const second = await org.raw.get(`/v1/companies?limit=2&cursor=${encodeURIComponent(first.data!.meta.next_cursor!)}`);
    expect(second.body.data.map((c: { name: string }) => c.name)).toEqual(['Globex Corporation']);
    expect(second.body.meta.has_more).toBe(false);
    expect(second.body.meta.next_cursor).toBeUndefined();
  });
});

describe('companies: update, counters and delete', () => {
  let org: TestOrg;
  let other: TestOrg;
  let events: EventLog;

  beforeAll(async () => {
    [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
    events = await eventsOf(org.orgId);
  });
  afterAll(async () => {
    await events.stop();
  });

  it('PATCH changes only what is sent, unassigns with null and emits company.updated with previous', async () => {
    const [owner, seller] = org.memberIds;
    const company = (
      await org.client.POST('/v1/companies', { body: { name: 'Old name', sector: 'Retail', assigned_to: owner, tags: ['a'] } })
    ).data!.data;

    const patched = await org.client.PATCH('/v1/companies/{id}', {
      params: { path: { id: company.id } },
      body: { name: 'New name', assigned_to: seller, tags: ['b'] },
    });
    expect(patched.response.status).toBe(200);
    expect(patched.data!.data).toMatchObject({
      name: 'New name',
      sector: 'Retail',
      assigned_to: { id: seller, name: 'Seller Person' },
      tags: ['b'],
    });

    const unassigned = await org.client.PATCH('/v1/companies/{id}', {
      params: { path: { id: company.id } },
      body: { assigned_to: null, website: 'acme.example' },
    });
    expect(unassigned.data!.data).toMatchObject({ assigned_to: null, website: 'acme.example', name: 'New name' });

    const isUpdate = (e: { type: string; data: any }) => e.type === 'company.updated' && e.data.object.id === company.id;
    await events.waitFor((received) => distinctEvents(received, isUpdate).length >= 2);
    const updates = distinctEvents(events.received, isUpdate).sort((a, b) => a.created_at.localeCompare(b.created_at));
    expect(updates).toHaveLength(2);
    const [first, second] = updates;
    expect(first?.data.previous).toEqual({ name: 'Old name', assigned_to: { id: owner, name: 'Owner Person' }, tags: ['a'] });
    expect(first?.data.object).toEqual(patched.data!.data);
    expect(second?.data.previous).toEqual({ assigned_to: { id: seller, name: 'Seller Person' }, website: null });
  });

  it('PATCH validates every reference before writing anything', async () => {
    const company = (await org.client.POST('/v1/companies', { body: { name: 'Stable' } })).data!.data;
    const foreign = await org.client.PATCH('/v1/companies/{id}', {
      params: { path: { id: company.id } },
      body: { name: 'Changed', assigned_to: other.memberIds[0] },
    });
    expect(foreign.response.status).toBe(422);
    expect(foreign.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'assigned_to' } });
    const readOnly = await org.client.PATCH('/v1/companies/{id}', {
      params: { path: { id: company.id } },
      body: { name: 'Changed', deals_count: 5 },
    });
    expect(readOnly.error!.error).toMatchObject({ code: 'UNKNOWN_FIELDS', details: { fields: ['deals_count'] } });
    const wrongType = await org.raw.patch(`/v1/companies/${company.id}`, { name: null });
    expect(wrongType.body.error.code).toBe('VALIDATION_ERROR');
    expect((await org.client.GET('/v1/companies/{id}', { params: { path: { id: company.id } } })).data!.data.name).toBe('Stable');
    expect(
      (await org.client.PATCH('/v1/companies/{id}', { params: { path: { id: MALFORMED } }, body: { name: 'x' } })).error!.error.code,
    ).toBe('INVALID_ID');
  });

  it('counts contacts linked concurrently and live deals with their total value, on every read', async () => {
    const company = (await org.client.POST('/v1/companies', { body: { name: 'Counted' } })).data!.data;
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => org.raw.post('/v1/contacts', { name: `Person ${i}`, company_id: company.id })),
    );
    expect(created.every((response) => response.status === 201)).toBe(true);
    const unlinked = (await org.client.POST('/v1/contacts', { body: { name: 'Later linked' } })).data!.data;
    await Promise.all([
      org.raw.patch(`/v1/contacts/${unlinked.id}`, { company_id: company.id }),
      org.raw.delete(`/v1/contacts/${created[0]?.body.data.id}`),
    ]);

    const deal1 = await insertRawDeal(org.orgId, { company_id: company.id, value: 1000, status: 'open' });
    await insertRawDeal(org.orgId, { company_id: company.id, value: 250.5, status: 'won' });
    await insertRawDeal(org.orgId, { company_id: company.id, value: 99, status: 'lost' });
    const gone = await insertRawDeal(org.orgId, { company_id: company.id, value: 5000 });
    await deleteRawDeal(gone);
    // Another organization's records never count, even with the same company id.
    await insertRawDeal(other.orgId, { company_id: company.id, value: 7 });

    const read = await org.client.GET('/v1/companies/{id}', { params: { path: { id: company.id } } });
    expect(read.data!.data).toMatchObject({ contacts_count: 20, deals_count: 3, total_deals_value: 1349.5 });
    const listed = (await listAll(org.client, '/v1/companies')).find((row) => row.id === company.id);
    expect(listed).toMatchObject({ contacts_count: 20, deals_count: 3, total_deals_value: 1349.5 });

    // #18: the company's contacts, meta.total counting them.
    const page = await org.client.GET('/v1/companies/{id}/contacts', { params: { path: { id: company.id }, query: { limit: 5 } } });
    expect(page.response.status).toBe(200);
    expect(page.data!.meta).toMatchObject({ total: 20, has_more: true });
    const all = await listAll(org.client, '/v1/companies/{id}/contacts', { path: { id: company.id }, query: { limit: 7 } });
    expect(all).toHaveLength(20);
    expect(all.every((contact) => contact.company?.id === company.id)).toBe(true);
    expect(new Set(all.map((contact) => contact.id)).size).toBe(20);

    // Delete is refused while links remain, with the counts that block it.
    const refused = await org.client.DELETE('/v1/companies/{id}', { params: { path: { id: company.id } } });
    expect(refused.response.status).toBe(403);
    expect(refused.error!.error).toMatchObject({
      type: 'forbidden',
      code: 'COMPANY_HAS_LINKS',
      details: { contacts_count: 20, deals_count: 3 },
    });
    expect(deal1).toMatch(/^dl_/);
  });

  it('refuses a delete blocked by a deal alone, then deletes and emits company.deleted', async () => {
    const company = (await org.client.POST('/v1/companies', { body: { name: 'To delete', tags: ['doomed'] } })).data!.data;
    const deal = await insertRawDeal(org.orgId, { company_id: company.id });
    const refused = await org.client.DELETE('/v1/companies/{id}', { params: { path: { id: company.id } } });
    expect(refused.error!.error).toMatchObject({ code: 'COMPANY_HAS_LINKS', details: { contacts_count: 0, deals_count: 1 } });
    await deleteRawDeal(deal);

    const deleted = await org.client.DELETE('/v1/companies/{id}', { params: { path: { id: company.id } } });
    expect(deleted.response.status).toBe(204);
    expect(await deleted.response.text()).toBe('');
    expect((await org.client.GET('/v1/companies/{id}', { params: { path: { id: company.id } } })).response.status).toBe(404);
    expect((await org.client.DELETE('/v1/companies/{id}', { params: { path: { id: company.id } } })).response.status).toBe(404);
    expect((await org.client.GET('/v1/companies/{id}/contacts', { params: { path: { id: company.id } } })).response.status).toBe(404);
    const tags = await listAll(org.client, '/v1/tags');
    expect(tags.find((tag) => tag.name === 'doomed')).toBeUndefined();
    // A contact cannot link to the deleted company.
    const link = await org.client.POST('/v1/contacts', { body: { name: 'Orphan', company_id: company.id } });
    expect(link.error!.error.code).toBe('INVALID_REFERENCE');

    await events.waitFor((received) => received.some((e) => e.type === 'company.deleted' && e.data.object.id === company.id));
    expect(events.ofType('company.deleted').find((e) => e.data.object.id === company.id)?.data).toEqual({ object: { id: company.id } });
  });
});

describe('companies: isolation and scopes', () => {
  it("never shows or counts another organization's companies, tags included", async () => {
    const [a, b] = await Promise.all([createTestOrg(), createTestOrg()]);
    await b.client.POST('/v1/companies', { body: { name: 'B only', tags: ['b-tag', 'shared'] } });
    await a.client.POST('/v1/companies', { body: { name: 'A only', tags: ['shared'] } });
    const listA = await a.client.GET('/v1/companies');
    expect(listA.data!.meta.total).toBe(1);
    expect(listA.data!.data.map((c: { name: string }) => c.name)).toEqual(['A only']);
    const tagsA = await listAll(a.client, '/v1/tags');
    expect(tagsA).toEqual([{ name: 'shared', count: 1 }]);
    const tagsB = await listAll(b.client, '/v1/tags');
    expect(tagsB.find((tag) => tag.name === 'b-tag')).toEqual({ name: 'b-tag', count: 1 });
  });

  it('needs read:companies to read, write:companies to write and read:contacts for #18', async () => {
    const org = await createTestOrg();
    const company = (await org.client.POST('/v1/companies', { body: { name: 'Scoped' } })).data!.data;
    const readOnly = await org.keyWith(['read:companies']);
    const writeOnly = await org.keyWith(['write:companies']);

    expect((await readOnly.client.GET('/v1/companies/{id}', { params: { path: { id: company.id } } })).response.status).toBe(200);
    for (const response of [
      await readOnly.raw.post('/v1/companies', { name: 'Nope' }),
      await readOnly.raw.patch(`/v1/companies/${company.id}`, { name: 'Nope' }),
      await readOnly.raw.delete(`/v1/companies/${company.id}`),
      await writeOnly.raw.get('/v1/companies'),
      await readOnly.raw.get(`/v1/companies/${company.id}/contacts`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('INSUFFICIENT_SCOPES');
    }
    expect(
      (await writeOnly.client.PATCH('/v1/companies/{id}', { params: { path: { id: company.id } }, body: { city: 'Lyon' } })).response
        .status,
    ).toBe(200);
    const contactsReader = await org.keyWith(['read:contacts']);
    expect((await contactsReader.client.GET('/v1/companies/{id}/contacts', { params: { path: { id: company.id } } })).response.status).toBe(
      200,
    );
  });
});

describe('companies: deals through the deals API (#19)', () => {
  it('lists the company deals with a status filter, counts them on the company and blocks the delete', async () => {
    const [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
    await createFunnel(org.client, { name: 'Sales' });
    const company = (await org.client.POST('/v1/companies', { body: { name: 'Dealer' } })).data!.data;
    const won = await createDeal(org.client, { title: 'Won one', value: 300, company_id: company.id });
    expect((await org.client.POST('/v1/deals/{id}/win', { params: { path: { id: won.id } } })).response.status).toBe(200);
    await createDeal(org.client, { title: 'Open one', value: 200, company_id: company.id });
    await createDeal(org.client, { title: 'Elsewhere', value: 50 });

    const all = await org.client.GET('/v1/companies/{id}/deals', { params: { path: { id: company.id } } });
    expect(all.response.status, JSON.stringify(all.error)).toBe(200);
    expect(all.data!.data.map((deal: { title: string }) => deal.title)).toEqual(['Open one', 'Won one']);
    expect(all.data!.meta.total).toBe(2);
    const wonOnly = await org.client.GET('/v1/companies/{id}/deals', { params: { path: { id: company.id }, query: { status: 'won' } } });
    expect(wonOnly.data!.data.map((deal: { title: string }) => deal.title)).toEqual(['Won one']);
    expect(wonOnly.data!.data[0]!.company).toEqual({ id: company.id, name: 'Dealer' });
    expect((await org.raw.get(`/v1/companies/${company.id}/deals?status=maybe`)).body.error.code).toBe('VALIDATION_ERROR');

    expect((await org.client.GET('/v1/companies/{id}', { params: { path: { id: company.id } } })).data!.data).toMatchObject({
      deals_count: 2,
      total_deals_value: 500,
    });
    expect((await org.client.DELETE('/v1/companies/{id}', { params: { path: { id: company.id } } })).error!.error).toMatchObject({
      code: 'COMPANY_HAS_LINKS',
      details: { contacts_count: 0, deals_count: 2 },
    });

    expect((await org.client.GET('/v1/companies/{id}/deals', { params: { path: { id: MALFORMED } } })).error!.error.code).toBe(
      'INVALID_ID',
    );
    expect((await other.client.GET('/v1/companies/{id}/deals', { params: { path: { id: company.id } } })).response.status).toBe(404);
    const companiesOnly = await org.keyWith(['read:companies']);
    expect((await companiesOnly.client.GET('/v1/companies/{id}/deals', { params: { path: { id: company.id } } })).error!.error.code).toBe(
      'INSUFFICIENT_SCOPES',
    );
  });
});
