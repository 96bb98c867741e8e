import { beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../services/crm/src/domain/api-keys';
import { rawApi } from '../support/api';
import { createTestOrg, crmAdmin, type TestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

let org: TestOrg;

beforeAll(async () => {
  org = await createTestOrg();
});

describe('authentication', () => {
  it('answers MISSING_API_KEY without an Authorization header', async () => {
    const response = await rawApi().get('/v1/contacts');
    expect(response.status).toBe(401);
    expect(response.body.error).toMatchObject({ type: 'unauthorized', code: 'MISSING_API_KEY' });
    expect(response.body.meta.request_id).toBe(response.headers.get('x-request-id'));
  });

  it('answers INVALID_API_KEY_FORMAT for a key without the sk_live_ prefix or another scheme', async () => {
    for (const authorization of ['Bearer abc', 'Bearer sk_test_123', 'Basic dXNlcjpwYXNz', 'sk_live_without_scheme']) {
      const response = await rawApi().get('/v1/contacts', { headers: { authorization } });
      expect(response.status, authorization).toBe(401);
      expect(response.body.error.code, authorization).toBe('INVALID_API_KEY_FORMAT');
    }
  });

  it('answers INVALID_API_KEY for an unknown key and for a revoked key', async () => {
    expect((await rawApi('sk_live_' + 'x'.repeat(40)).get('/v1/contacts')).body.error.code).toBe('INVALID_API_KEY');
    const victim = await createTestOrg();
    expect((await victim.client.GET('/v1/contacts')).response.status).toBe(200);
    await revokeApiKey(await crmAdmin(), victim.orgId, victim.keyId);
    // The gateway trusts a verified key for AUTH_CACHE_TTL_MS (200 ms in tests).
    await new Promise((resolve) => setTimeout(resolve, 400));
    const response = await victim.client.GET('/v1/contacts');
    expect(response.response.status).toBe(401);
    expect(response.error!.error.code).toBe('INVALID_API_KEY');
  });

  it('never stores the key itself, only its hash', async () => {
    const deps = await crmAdmin();
    const stored = await deps.apiKeys.getById(org.orgId, org.keyId);
    expect(JSON.stringify(stored)).not.toContain(org.key);
    expect(stored?.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(org.key).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
  });
});

describe('scopes', () => {
  it('answers INSUFFICIENT_SCOPES with the required, missing and held scopes', async () => {
    const readOnly = await org.keyWith(['read:contacts']);
    expect((await readOnly.client.GET('/v1/contacts')).response.status).toBe(200);
    const response = await readOnly.client.POST('/v1/contacts', { body: { name: 'Nope' } });
    expect(response.response.status).toBe(403);
    expect(response.error!.error).toMatchObject({
      type: 'forbidden',
      code: 'INSUFFICIENT_SCOPES',
      required_scopes: ['write:contacts'],
      missing_scopes: ['write:contacts'],
      your_scopes: ['read:contacts'],
    });
  });

  it('does not let write:contacts imply read:contacts', async () => {
    const writeOnly = await org.keyWith(['write:contacts']);
    expect((await writeOnly.client.POST('/v1/contacts', { body: { name: 'Writer' } })).response.status).toBe(201);
    expect((await writeOnly.client.GET('/v1/contacts')).error!.error.code).toBe('INSUFFICIENT_SCOPES');
  });

  it('lets any valid key read /v1/me, with its organization and scopes but never the key', async () => {
    const scoped = await org.keyWith(['read:tags']);
    const response = await scoped.client.GET('/v1/me');
    expect(response.response.status).toBe(200);
    expect(response.data!.data.organization.id).toBe(org.orgId);
    expect(response.data!.data.api_key.scopes).toEqual(['read:tags']);
    expect(response.data!.data.api_key.prefix).toMatch(/^sk_live_.{4}$/);
    // The key as GET /v1/me documents it: what GET /v1/api-keys adds (status, expiry, revocation) is not in it.
    expect(Object.keys(response.data!.data.api_key).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name', 'prefix', 'scopes']);
  });
});

describe('request validation', () => {
  it('answers INVALID_JSON for a body that is not JSON or not an object', async () => {
    for (const rawBody of ['{"name":', '[1,2]', '"text"', '42']) {
      const response = await org.raw.request('POST', '/v1/contacts', { rawBody, headers: { 'content-type': 'application/json' } });
      expect(response.status, rawBody).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'INVALID_JSON', type: 'invalid_request' });
    }
  });

  it('answers 413 PAYLOAD_TOO_LARGE above the body limit', async () => {
    const response = await org.client.POST('/v1/contacts', { body: { name: 'Big', custom_fields: { blob: 'x'.repeat(2 * 1024 * 1024) } } });
    expect(response.response.status).toBe(413);
    expect(response.error!.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const response = await org.raw.request('POST', '/v1/contacts', {
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expect(response.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers ROUTE_NOT_FOUND for an unknown path and METHOD_NOT_ALLOWED with Allow for a wrong method', async () => {
    const missing = await org.raw.get('/v1/unknown-things');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('ROUTE_NOT_FOUND');
    const wrong = await org.raw.request('PUT', '/v1/contacts');
    expect(wrong.status).toBe(405);
    expect(wrong.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(wrong.headers.get('allow')).toBe('GET, POST');
  });
});

describe('discontinued message credits', () => {
  it.each([
    ['GET', '/v1/message-credits'],
    ['GET', '/v1/message-credits/transactions'],
    ['POST', '/v1/message-credits/purchase'],
  ])('%s %s answers 410 FEATURE_DISCONTINUED to any valid key, whatever its scopes', async (method, path) => {
    const noScopes = await org.keyWith([]);
    const response = await noScopes.raw.request(
      method,
      path,
      method === 'POST' ? { rawBody: 'not even json', headers: { 'content-type': 'application/json' } } : {},
    );
    expect(response.status).toBe(410);
    expect(response.body.error).toMatchObject({
      type: 'gone',
      code: 'FEATURE_DISCONTINUED',
      details: { feature: 'message_credits', billed_by: 'cloud_provider' },
    });
    expect(response.body.error.message).toContain('billed by the cloud provider');
    expect((await rawApi().request(method, path)).status).toBe(401);
  });
});

describe('health and documentation', () => {
  it('serves /healthz, /readyz and the OpenAPI 3.1 document without a key', async () => {
    const { baseUrl } = testSystem();
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    const document = (await (await fetch(`${baseUrl}/api/docs/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown>; deprecated?: boolean }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).every((path) => path.startsWith('/v1/'))).toBe(true);
    expect(document.paths['/v1/contacts']?.post?.operationId).toBe('createContact');
    expect(document.paths['/v1/contacts/{id}']?.get?.responses).toHaveProperty('404');
    expect(document.paths['/v1/message-credits']?.get?.deprecated).toBe(true);
    expect(document.components.schemas).toHaveProperty('Contact');
    expect(document.components.schemas).toHaveProperty('Error');
    // The reference page (rendered in a browser: api-docs-browser.test.ts) loads only this gateway's files.
    const page = await fetch(`${baseUrl}/api/docs`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('/api/docs/scalar/js/scalar.js');
  });
});
