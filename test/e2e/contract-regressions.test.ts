import { describe, expect, it } from 'vitest';
import { createTestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

/** Bugs found by the schemathesis run (test/contract/fuzz.test.ts), one test each, so they stay fixed. */
describe('contract regressions found by fuzzing', () => {
  it('answers an unrouted QUERY request 405 with Allow (or 404), not 500', async () => {
    // Fastify reads a body for QUERY and failed it (no Content-Type) before the not-found handler could answer.
    const org = await createTestOrg();
    const { baseUrl } = testSystem();
    const headers = { Authorization: `Bearer ${org.key}` };

    const known = await fetch(`${baseUrl}/v1/me`, { method: 'QUERY', headers });
    expect(known.status).toBe(405);
    expect(known.headers.get('allow')).toBe('GET');
    expect(known.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await known.json()) as { error: { code: string; type: string }; meta: { request_id: string } };
    expect(body.error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', type: 'invalid_request' });
    expect(body.meta.request_id).toBe(known.headers.get('x-request-id'));

    const unknown = await fetch(`${baseUrl}/v1/nothing-here`, { method: 'QUERY', headers });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('searches for a term with a NUL character instead of failing 500', async () => {
    // The term went into a BSON regular expression, which cannot hold a NUL byte: the driver threw.
    const org = await createTestOrg();
    for (const path of ['/v1/contacts', '/v1/companies', '/v1/deals'] as const) {
      const found = await org.client.GET(path, { params: { query: { search: 'Ada\u0000' } } });
      expect(found.response.status, path).toBe(200);
      expect(found.data!.data).toEqual([]);
    }
  });

  it('refuses a JSON null body, even where the body may be left out', async () => {
    // null counted as "no body" and was accepted where the document asks for an object.
    const org = await createTestOrg();
    const webhook = await org.client.POST('/v1/webhooks', {
      body: { name: 'null body', url: 'https://hooks.example.com/crm', events: ['contact.created'] },
    });
    const rotate = await org.raw.post(`/v1/webhooks/${webhook.data!.data.id}/rotate-secret`, undefined, {
      rawBody: 'null',
      headers: { 'content-type': 'application/json' },
    });
    expect(rotate.status).toBe(400);
    expect(rotate.body.error.code).toBe('INVALID_JSON');
    const leftOut = await org.client.POST('/v1/webhooks/{id}/rotate-secret', { params: { path: { id: webhook.data!.data.id } } });
    expect(leftOut.response.status).toBe(200);
  });

  it('answers a tag path segment over 50 characters 422 VALIDATION_ERROR, as documented', async () => {
    const org = await createTestOrg();
    const contact = await org.client.POST('/v1/contacts', { body: { name: 'Tagged' } });
    const removed = await org.raw.delete(`/v1/contacts/${contact.data!.data.id}/tags/${'x'.repeat(51)}`);
    expect(removed.status).toBe(422);
    expect(removed.body.error.code).toBe('VALIDATION_ERROR');
  });
});
