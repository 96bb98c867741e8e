import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/messaging';
import { createTestOrg, type ScopedKey, type TestOrg } from '../support/orgs';

let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
});

/** Waits out the gateway's key cache (AUTH_CACHE_TTL_MS, 200 ms in tests) until the key is refused. */
const refusedSoon = (key: ScopedKey) =>
  eventually('the revoked key refused', async () => {
    const answer = await key.raw.get('/v1/contacts');
    return answer.status === 401 ? answer : undefined;
  });

describe('GET /v1/api-keys', () => {
  it("lists the organization's keys newest first, what identifies each and what it may do, never a key or its hash", async () => {
    const reader = await org.keyWith(['read:api_keys', 'read:contacts']);
    const { data, error, response } = await reader.client.GET('/v1/api-keys');
    expect(response.status, JSON.stringify(error)).toBe(200);
    const keys = data!.data;
    expect(keys.map((key) => key.id)).toEqual([reader.keyId, org.keyId]);
    // last_used_at is written in the background of the key's first check: null or a time.
    const { last_used_at: lastUsed, ...listed } = keys[0]!;
    expect(lastUsed === null || /Z$/.test(lastUsed)).toBe(true);
    expect(listed).toEqual({
      id: reader.keyId,
      name: 'scoped',
      prefix: reader.key.slice(0, keys[0]!.prefix.length),
      scopes: ['read:api_keys', 'read:contacts'],
      created_at: expect.stringMatching(/Z$/),
      expires_at: null,
      revoked_at: null,
      status: 'active',
    });
    expect(keys[0]!.prefix).toMatch(/^sk_live_/);
    expect(keys[0]!.prefix.length).toBeLessThan(reader.key.length);
    expect(data!.meta.total).toBe(2);
    const text = JSON.stringify(data);
    for (const secret of [org.key, reader.key]) expect(text).not.toContain(secret.slice(12));
    expect(text).not.toMatch(/[0-9a-f]{64}/);
  });

  it('pages with the cursor and never shows another organization’s keys', async () => {
    const first = await org.client.GET('/v1/api-keys', { params: { query: { limit: 1 } } });
    expect(first.data!.data).toHaveLength(1);
    expect(first.data!.meta.has_more).toBe(true);
    const rest = await org.client.GET('/v1/api-keys', { params: { query: { limit: 100, cursor: first.data!.meta.next_cursor } } });
    const ids = [...first.data!.data, ...rest.data!.data].map((key) => key.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(org.keyId);
    expect(ids).not.toContain(other.keyId);
  });

  it('needs read:api_keys', async () => {
    const narrow = await org.keyWith(['read:contacts']);
    const { error, response } = await narrow.client.GET('/v1/api-keys');
    expect(response.status).toBe(403);
    expect(error!.error).toMatchObject({ code: 'INSUFFICIENT_SCOPES', missing_scopes: ['read:api_keys'] });
  });
});

describe('DELETE /v1/api-keys/{id}', () => {
  it('revokes a key: it is refused from then on, listed as revoked, and a second revocation is 404', async () => {
    const victim = await org.keyWith(['read:contacts']);
    expect((await victim.raw.get('/v1/contacts')).status).toBe(200);
    const revoked = await org.client.DELETE('/v1/api-keys/{id}', { params: { path: { id: victim.keyId } } });
    expect(revoked.response.status, JSON.stringify(revoked.error)).toBe(204);
    expect((await refusedSoon(victim)).body.error.code).toBe('INVALID_API_KEY');
    const listed = (await org.client.GET('/v1/api-keys', { params: { query: { limit: 100 } } })).data!.data.find(
      (key) => key.id === victim.keyId,
    );
    expect(listed).toMatchObject({ status: 'revoked', revoked_at: expect.stringMatching(/Z$/) });
    const again = await org.client.DELETE('/v1/api-keys/{id}', { params: { path: { id: victim.keyId } } });
    expect(again.response.status).toBe(404);
    expect(again.error!.error.code).toBe('NOT_FOUND');
  });

  it('lets a key revoke itself', async () => {
    const self = await org.keyWith(['write:api_keys']);
    const revoked = await self.client.DELETE('/v1/api-keys/{id}', { params: { path: { id: self.keyId } } });
    expect(revoked.response.status).toBe(204);
    await refusedSoon(self);
  });

  it('never revokes a key that holds a scope the asking key lacks', async () => {
    const narrow = await org.keyWith(['write:api_keys', 'read:contacts']);
    const { error, response } = await narrow.client.DELETE('/v1/api-keys/{id}', { params: { path: { id: org.keyId } } });
    expect(response.status).toBe(403);
    expect(error!.error.code).toBe('INSUFFICIENT_SCOPES');
    expect(error!.error.missing_scopes).toContain('write:contacts');
    expect(error!.error.missing_scopes).not.toContain('read:contacts');
    expect((await org.raw.get('/v1/contacts')).status).toBe(200);
  });

  it("answers 404 for another organization's key and leaves it working; 400 for a malformed id; 403 without write:api_keys", async () => {
    const foreign = await org.client.DELETE('/v1/api-keys/{id}', { params: { path: { id: other.keyId } } });
    expect(foreign.response.status).toBe(404);
    expect((await other.raw.get('/v1/contacts')).status).toBe(200);
    const malformed = await org.raw.delete('/v1/api-keys/not-a-key');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('INVALID_ID');
    const reader = await org.keyWith(['read:api_keys']);
    const refused = await reader.client.DELETE('/v1/api-keys/{id}', { params: { path: { id: reader.keyId } } });
    expect(refused.response.status).toBe(403);
    expect(refused.error!.error).toMatchObject({ code: 'INSUFFICIENT_SCOPES', missing_scopes: ['write:api_keys'] });
  });
});
