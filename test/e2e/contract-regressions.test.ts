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
});
