import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../support/events';
import { createTestOrg, type TestOrg } from '../support/orgs';

let org: TestOrg;

beforeAll(async () => {
  org = await createTestOrg();
});

const upsertContacts = async (items: unknown[], headers: Record<string, string> = {}, on: TestOrg = org) => {
  const response = await on.raw.post('/v1/contacts/batch/upsert', { items }, { headers });
  expect(response.status, response.text).toBe(200);
  return response;
};

describe('POST /v1/contacts/batch/upsert', () => {
  it('creates, updates and leaves unchanged per item, matched by external_id, email or phone, with the events of single writes', async () => {
    const events = await eventsOf(org.orgId);
    try {
      const first = await upsertContacts([
        { external_id: 'shop-1', name: 'Ann', email: 'ann@batch.example', tags: ['shop'] },
        { email: 'bob@batch.example', name: 'Bob' },
        { phone: '+14155550901', name: 'Cy', source: 'import' },
      ]);
      expect(first.body.meta.request_id).toMatch(/^req_/);
      const created = first.body.data;
      expect(created.map((item: { status: string }) => item.status)).toEqual(['created', 'created', 'created']);
      expect(created.map((item: { index: number }) => item.index)).toEqual([0, 1, 2]);
      for (const item of created) expect(item.id).toMatch(/^ct_/);

      const second = await upsertContacts([
        { external_id: 'shop-1', name: 'Ann Smith' },
        { email: 'BOB@batch.example', name: 'Bob' },
        { phone: '+14155550901', tags: ['called'] },
        { external_id: 'shop-2', name: 'Dee' },
      ]);
      expect(second.body.data).toEqual([
        { index: 0, status: 'updated', id: created[0].id },
        { index: 1, status: 'unchanged', id: created[1].id },
        { index: 2, status: 'updated', id: created[2].id },
        { index: 3, status: 'created', id: expect.stringMatching(/^ct_/) },
      ]);

      const ann = (await org.raw.get(`/v1/contacts/${created[0].id}`)).body.data;
      expect(ann).toMatchObject({ name: 'Ann Smith', email: 'ann@batch.example', external_id: 'shop-1', tags: ['shop'] });
      const cy = (await org.raw.get(`/v1/contacts/${created[2].id}`)).body.data;
      expect(cy).toMatchObject({ source: 'import', tags: ['called'], external_id: null });

      await events.waitFor((received) => received.filter((event) => event.type === 'contact.created').length >= 4);
      await events.waitFor((received) => received.filter((event) => event.type === 'contact.updated').length >= 2);
      const updated = events.ofType('contact.updated').find((event) => event.data.object.id === created[0].id);
      expect(updated?.data.previous).toEqual({ name: 'Ann' });
      // As single writes: a create emits contact.created only; an update emits the tags it adds.
      expect(events.ofType('contact.tag.added').map((event) => event.data.tag)).toEqual(['called']);
      // The unchanged item emitted nothing.
      expect(events.ofType('contact.updated').filter((event) => event.data.object.id === created[1].id)).toHaveLength(0);
    } finally {
      await events.stop();
    }
  });

  it('answers each bad item with the public error object and writes the others', async () => {
    const response = await upsertContacts([
      'not an object',
      { name: 'No key' },
      { email: 'nope', name: 'Bad mail' },
      { email: 'fresh@batch.example' },
      { email: 'ok@batch.example', name: 'Fine', extra: 1 },
      { email: 'ok2@batch.example', name: 'Fine', company_id: 'co_0000000000000000000000' },
      { email: 'ok3@batch.example', name: 'Good' },
    ]);
    const [notObject, noKey, badMail, noName, unknown, badRef, good] = response.body.data;
    expect(notObject).toMatchObject({ index: 0, status: 'error', id: null, error: { type: 'unprocessable', code: 'VALIDATION_ERROR' } });
    expect(noKey.error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(badMail.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [{ field: 'email' }] } });
    expect(noName.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [{ field: 'name' }] } });
    expect(unknown.error).toMatchObject({ type: 'unprocessable', code: 'UNKNOWN_FIELDS', details: { fields: ['extra'] } });
    expect(badRef.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'company_id' } });
    expect(good).toEqual({ index: 6, status: 'created', id: expect.stringMatching(/^ct_/) });
    const listed = await org.raw.get('/v1/contacts?search=batch.example&limit=100');
    const emails = listed.body.data.map((contact: { email: string }) => contact.email);
    expect(emails).toContain('ok3@batch.example');
    expect(emails).not.toContain('ok@batch.example');
  });

  it('reports a conflict between the keys of one item as that item’s DUPLICATE_CONTACT', async () => {
    const [a, b] = (
      await upsertContacts([
        { external_id: 'conf-a', name: 'A', email: 'conf-a@batch.example' },
        { external_id: 'conf-b', name: 'B', email: 'conf-b@batch.example' },
      ])
    ).body.data;
    const response = await upsertContacts([{ external_id: 'conf-a', email: 'conf-b@batch.example' }]);
    expect(response.body.data[0]).toMatchObject({
      status: 'error',
      error: { type: 'conflict', code: 'DUPLICATE_CONTACT', details: { field: 'email', existing_id: b.id } },
    });
    expect((await org.raw.get(`/v1/contacts/${a.id}`)).body.data.email).toBe('conf-a@batch.example');
  });

  it('refuses a batch that is not a list of 1 to 100 items, and unknown top-level fields', async () => {
    const tooMany = await org.raw.post('/v1/contacts/batch/upsert', {
      items: Array.from({ length: 101 }, (_, i) => ({ email: `x${i}@batch.example` })),
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [{ field: 'items' }] } });
    expect((await org.raw.post('/v1/contacts/batch/upsert', { items: [] })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await org.raw.post('/v1/contacts/batch/upsert', {})).body.error.code).toBe('VALIDATION_ERROR');
    expect((await org.raw.post('/v1/contacts/batch/upsert', { items: [], mode: 'x' })).body.error.code).toBe('UNKNOWN_FIELDS');
    const notJson = await org.raw.post('/v1/contacts/batch/upsert', undefined, {
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.body.error?.code).toBe('INVALID_JSON');
  });

  it('needs write:contacts', async () => {
    const reader = await org.keyWith(['read:contacts']);
    const response = await reader.raw.post('/v1/contacts/batch/upsert', { items: [{ email: 'scope@batch.example', name: 'S' }] });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('INSUFFICIENT_SCOPES');
  });

  it('replays the whole batch for a repeated Idempotency-Key and refuses the key with another body', async () => {
    const key = randomUUID();
    const items = [{ email: 'idem@batch.example', name: 'Idem' }];
    const first = await upsertContacts(items, { 'idempotency-key': key });
    const again = await upsertContacts(items, { 'idempotency-key': key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect(first.body.data[0].status).toBe('created');
    const other = await org.raw.post(
      '/v1/contacts/batch/upsert',
      { items: [{ email: 'other@batch.example', name: 'O' }] },
      {
        headers: { 'idempotency-key': key },
      },
    );
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('makes one contact when parallel batches name the same people', async () => {
    const fresh = await createTestOrg();
    const people = Array.from({ length: 20 }, (_, i) => ({ external_id: `race-${i}`, email: `race-${i}@batch.example`, name: `R${i}` }));
    const byEmail = people.map(({ email, name }) => ({ email, name }));
    const batches = await Promise.all(Array.from({ length: 6 }, (_, i) => upsertContacts(i % 2 === 0 ? people : byEmail, {}, fresh)));
    for (const batch of batches) for (const item of batch.body.data) expect(item.status, JSON.stringify(item)).not.toBe('error');
    const listed = await fresh.raw.get('/v1/contacts?limit=100');
    expect(listed.body.data).toHaveLength(20);
    const ids = new Set(batches.flatMap((batch) => batch.body.data.map((item: { id: string }) => item.id)));
    expect(ids.size).toBe(20);
    expect(batches.flatMap((batch) => batch.body.data).filter((item: { status: string }) => item.status === 'created')).toHaveLength(20);
  });

  it('frees the external_id of a deleted contact and keeps organizations apart', async () => {
    const [item] = (await upsertContacts([{ external_id: 'reuse-1', name: 'First' }])).body.data;
    expect((await org.raw.delete(`/v1/contacts/${item.id}`)).status).toBe(204);
    const [again] = (await upsertContacts([{ external_id: 'reuse-1', name: 'Second' }])).body.data;
    expect(again.status, JSON.stringify(again)).toBe('created');
    expect(again.id).not.toBe(item.id);

    const other = await createTestOrg();
    const [elsewhere] = (await upsertContacts([{ external_id: 'reuse-1', name: 'Other org' }], {}, other)).body.data;
    expect(elsewhere.status).toBe('created');
    expect((await org.raw.get(`/v1/contacts/${elsewhere.id}`)).status).toBe(404);
  });

  it('refuses an external_id another contact holds on create and update with DUPLICATE_CONTACT', async () => {
    const taken = (await org.raw.post('/v1/contacts', { name: 'Holder', external_id: 'dup-x' })).body.data;
    expect(taken.external_id).toBe('dup-x');
    const create = await org.raw.post('/v1/contacts', { name: 'Second', external_id: 'dup-x' });
    expect(create.status).toBe(409);
    expect(create.body.error).toMatchObject({ code: 'DUPLICATE_CONTACT', details: { field: 'external_id', existing_id: taken.id } });
    const other = (await org.raw.post('/v1/contacts', { name: 'Other' })).body.data;
    const patch = await org.raw.patch(`/v1/contacts/${other.id}`, { external_id: 'dup-x' });
    expect(patch.status).toBe(409);
    expect(patch.body.error.details).toMatchObject({ field: 'external_id', existing_id: taken.id });
  });
});

describe('POST /v1/companies/batch/upsert', () => {
  it('creates and updates companies by external_id, email or phone, one result per item', async () => {
    const first = await org.raw.post('/v1/companies/batch/upsert', {
      items: [
        { external_id: 'erp-1', name: 'Acme', sector: 'Retail' },
        { email: 'hello@globex.example', name: 'Globex' },
        { phone: '+14155550999' },
      ],
    });
    expect(first.status, first.text).toBe(200);
    const [acme, globex, noName] = first.body.data;
    expect(acme).toEqual({ index: 0, status: 'created', id: expect.stringMatching(/^co_/) });
    expect(globex.status).toBe('created');
    expect(noName).toMatchObject({ status: 'error', error: { code: 'VALIDATION_ERROR' } });

    const second = await org.raw.post('/v1/companies/batch/upsert', {
      items: [
        { external_id: 'erp-1', sector: 'Wholesale' },
        { email: 'hello@globex.example', name: 'Globex' },
      ],
    });
    expect(second.body.data).toEqual([
      { index: 0, status: 'updated', id: acme.id },
      { index: 1, status: 'unchanged', id: globex.id },
    ]);
    expect((await org.raw.get(`/v1/companies/${acme.id}`)).body.data).toMatchObject({ sector: 'Wholesale', external_id: 'erp-1' });
  });

  it('makes one company when parallel batches name the same company', async () => {
    const fresh = await createTestOrg();
    const items = Array.from({ length: 10 }, (_, i) => ({ external_id: `co-race-${i}`, name: `Co ${i}` }));
    const batches = await Promise.all(Array.from({ length: 4 }, () => fresh.raw.post('/v1/companies/batch/upsert', { items })));
    for (const batch of batches) expect(batch.status).toBe(200);
    expect((await fresh.raw.get('/v1/companies?limit=100')).body.data).toHaveLength(10);
  });
});
