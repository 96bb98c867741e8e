import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestOrg, type TestOrg } from '../support/orgs';

let org: TestOrg;

beforeAll(async () => {
  org = await createTestOrg();
});

const count = async (search: string) =>
  (await org.client.GET('/v1/contacts', { params: { query: { search: search } } })).data!.data.length as number;

describe('Idempotency-Key on POST /v1/contacts', () => {
  it('replays the stored response for a repeat and creates nothing more', async () => {
    const key = randomUUID();
    const first = await org.raw.post('/v1/contacts', { name: 'Idem Once' }, { headers: { 'idempotency-key': key } });
    const second = await org.raw.post('/v1/contacts', { name: 'Idem Once' }, { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await count('Idem Once')).toBe(1);
  });

  it('refuses the same key with another body with IDEMPOTENCY_KEY_REUSED', async () => {
    const key = randomUUID();
    await org.raw.post('/v1/contacts', { name: 'Idem Alpha' }, { headers: { 'idempotency-key': key } });
    const response = await org.raw.post('/v1/contacts', { name: 'Idem Bravo' }, { headers: { 'idempotency-key': key } });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', type: 'unprocessable' });
    expect(await count('Idem Bravo')).toBe(0);
  });

  it('treats another key with the same body as a new request', async () => {
    await org.raw.post('/v1/contacts', { name: 'Idem Twice' }, { headers: { 'idempotency-key': randomUUID() } });
    await org.raw.post('/v1/contacts', { name: 'Idem Twice' }, { headers: { 'idempotency-key': randomUUID() } });
    expect(await count('Idem Twice')).toBe(2);
  });

  it('executes concurrent requests with one key once', async () => {
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => org.raw.post('/v1/contacts', { name: 'Idem Race' }, { headers: { 'idempotency-key': key } })),
    );
    for (const response of responses) expect([201, 409]).toContain(response.status);
    const created = responses.filter((response) => response.status === 201);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((response) => response.body.data.id)).size).toBe(1);
    for (const response of responses.filter((r) => r.status === 409)) expect(response.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(await count('Idem Race')).toBe(1);
  });

  it('replays a refusal too, and keeps keys of different organizations apart', async () => {
    const key = randomUUID();
    const refused = await org.raw.post('/v1/contacts', { name: 'Idem Bad', source: 'site' }, { headers: { 'idempotency-key': key } });
    expect(refused.status).toBe(422);
    const again = await org.raw.post('/v1/contacts', { name: 'Idem Bad', source: 'site' }, { headers: { 'idempotency-key': key } });
    expect(again.status).toBe(422);

    const other = await createTestOrg();
    const shared = randomUUID();
    expect((await org.raw.post('/v1/contacts', { name: 'Idem Org A' }, { headers: { 'idempotency-key': shared } })).status).toBe(201);
    expect((await other.raw.post('/v1/contacts', { name: 'Idem Org B' }, { headers: { 'idempotency-key': shared } })).status).toBe(201);
  });

  it('ignores the header on GET and on routes that do not honour it', async () => {
    const key = randomUUID();
    expect((await org.raw.get('/v1/contacts', { headers: { 'idempotency-key': key } })).status).toBe(200);
    const contact = (await org.client.POST('/v1/contacts', { body: { name: 'Idem Tags' } })).data!.data;
    const a = await org.raw.post(`/v1/contacts/${contact.id}/tags`, { tags: ['x'] }, { headers: { 'idempotency-key': key } });
    const b = await org.raw.post(`/v1/contacts/${contact.id}/tags`, { tags: ['y'] }, { headers: { 'idempotency-key': key } });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.data.tags).toEqual(['x', 'y']);
  });

  it('refuses a malformed key', async () => {
    const response = await org.raw.post('/v1/contacts', { name: 'Idem Malformed' }, { headers: { 'idempotency-key': 'x'.repeat(300) } });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });
});
