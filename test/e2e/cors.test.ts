import { describe, expect, it } from 'vitest';
import { createTestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

// The test system's gateway runs with the default CORS_ALLOWED_ORIGINS (`*`).
const ORIGIN = 'https://app.example.com';

const preflight = (path: string, method: string, headers: Record<string, string> = {}) =>
  fetch(`${testSystem().baseUrl}${path}`, {
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': method, ...headers },
  });

describe('CORS: a browser may call the API with a key', () => {
  it('answers a preflight of PUT with the route methods, the allowed headers and a max age', async () => {
    const response = await preflight('/v1/ai-agents/ag_0000000000000000000000', 'PUT', {
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const methods = (response.headers.get('access-control-allow-methods') ?? '').split(/,\s*/);
    expect(methods).toEqual(expect.arrayContaining(['GET', 'PUT', 'PATCH', 'DELETE']));
    expect(response.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Idempotency-Key');
    expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    // Keys, not cookies: credentials are never allowed.
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(await response.text()).toBe('');
  });

  it('lists the methods of the path asked about, and 404s an unknown path', async () => {
    const list = await preflight('/v1/companies', 'POST');
    expect(list.status).toBe(204);
    expect((list.headers.get('access-control-allow-methods') ?? '').split(/,\s*/).sort()).toEqual(['GET', 'POST']);
    const unknown = await preflight('/v1/nothing-here', 'GET');
    expect(unknown.status).toBe(404);
  });

  it('an OPTIONS that is not a preflight still answers 405 with Allow', async () => {
    const response = await fetch(`${testSystem().baseUrl}/v1/companies`, { method: 'OPTIONS' });
    expect(response.status).toBe(405);
    expect((response.headers.get('allow') ?? '').split(/,\s*/).sort()).toEqual(['GET', 'POST']);
  });

  it('puts Access-Control-Allow-Origin and the exposed headers on answers, errors included', async () => {
    const org = await createTestOrg();
    const ok = await fetch(`${testSystem().baseUrl}/v1/companies`, { headers: { origin: ORIGIN, authorization: `Bearer ${org.key}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = (ok.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
    expect(exposed).toEqual(
      expect.arrayContaining(['X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'Idempotent-Replayed']),
    );

    const refused = await fetch(`${testSystem().baseUrl}/v1/companies`, { headers: { origin: ORIGIN } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');

    // No Origin: not a browser's cross-origin call, no CORS headers.
    const plain = await fetch(`${testSystem().baseUrl}/v1/companies`, { headers: { authorization: `Bearer ${org.key}` } });
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
  });
});
