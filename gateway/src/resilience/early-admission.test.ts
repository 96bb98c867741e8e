import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../http/route';
import { admittingServer } from '../http/admitting-server';
import { createEarlyAdmission } from './early-admission';
import { InflightRequests } from './inflight-limit';
import { TenantBulkheads } from './tenant-bulkhead';

const principals: Record<string, Principal> = {
  'Bearer key_a': { orgId: 'org_a', keyId: 'key_a', scopes: [], plan: 'pro' },
  'Bearer key_b': { orgId: 'org_b', keyId: 'key_b', scopes: [], plan: 'pro' },
};

/**
 * A process with early admission whose /held answers (in the organization's bulkhead, as the pipeline serves) when
 * the test releases it; `handled` counts the requests that reached a handler. It listens on a port: early admission
 * is the HTTP server's, which `inject` bypasses.
 */
async function appWith(limits: { max: number; perOrg: number }, bulkhead = { concurrency: 1, queue: 1, queueWaitMs: 0 }, checkMs = 0) {
  const inflight = new InflightRequests(limits);
  const bulkheads = new TenantBulkheads(() => bulkhead);
  const refused: string[] = [];
  const state = { serving: true };
  const admit = createEarlyAdmission({
    inflight,
    bulkheads,
    principalOf: (header) => (header ? principals[header] : undefined),
    requestTimeoutMs: 10_000,
    serving: () => state.serving,
    headersFor: (origin) => ({ 'Cache-Control': 'no-store', ...(origin ? { 'Access-Control-Allow-Origin': '*' } : {}) }),
    refused: (_request, _response, error) => refused.push(error.code),
  });
  const app = Fastify({
    genReqId: () => `req_${Math.random().toString(36).slice(2)}`,
    serverFactory: (handler) => admittingServer({ http: {}, keepAliveTimeout: 5_000, requestTimeout: 10_000 }, admit, handler),
  });
  const waiting: Array<() => void> = [];
  let handled = 0;
  app.get('/held', async (request) => {
    handled += 1;
    // The pipeline's work before a request takes its place (its key checked, its rate counted).
    if (checkMs > 0) await new Promise((resolve) => setTimeout(resolve, checkMs));
    const principal = principals[request.headers.authorization ?? ''];
    const work = () => new Promise((resolve) => waiting.push(() => resolve({ ok: true })));
    return principal ? bulkheads.run(principal.orgId, principal.plan, work) : work();
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const get = async (key?: string, headers: Record<string, string> = {}, path = '/held') => {
    const answer = await fetch(base + path, { headers: { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) } });
    const text = await answer.text();
    return { statusCode: answer.status, headers: answer.headers, json: () => JSON.parse(text) as unknown };
  };
  const until = async (count: number) => {
    while (handled < count) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  return { app, get, until, refused, state, handled: () => handled, release: () => waiting.splice(0).forEach((answer) => answer()) };
}

describe('early admission', () => {
  it("refuses an organization over its open requests with 429 policy inflight, in the envelope, while another's are served", async () => {
    const { app, get, until, handled, release } = await appWith({ max: 10, perOrg: 2 }, { concurrency: 5, queue: 5, queueWaitMs: 0 });
    const held = [get('key_a'), get('key_a')];
    await until(2);
    const refused = await get('key_a');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(refused.json()).toEqual({
      error: {
        type: 'rate_limited',
        code: 'RATE_LIMITED',
        message: expect.stringContaining('2 requests open'),
        details: { policy: 'inflight', limit: 2, retry_after_seconds: 1 },
      },
      meta: { request_id: expect.stringMatching(/^req_/) },
    });
    // Never reached a handler; the other organization's request does.
    expect(handled()).toBe(2);
    const other = get('key_b');
    await until(3);
    release();
    expect((await other).statusCode).toBe(200);
    expect((await Promise.all(held)).map((answer) => answer.statusCode)).toEqual([200, 200]);
    // Its requests ended: the organization is served again.
    const again = get('key_a');
    await until(4);
    release();
    expect((await again).statusCode).toBe(200);
    await app.close();
  });

  it('keeps the process-wide cap as the last guard (503) and never refuses a probe', async () => {
    const { app, get, until, release } = await appWith({ max: 2, perOrg: 1 }, { concurrency: 5, queue: 5, queueWaitMs: 0 });
    const held = [get('key_a'), get('key_b')];
    await until(2);
    const refused = await get();
    expect(refused.statusCode).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json()).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', type: 'unavailable' } });
    expect((await get(undefined, {}, '/healthz')).statusCode).toBe(200);
    release();
    await Promise.all(held);
    await app.close();
  });

  it("refuses at once, before any handler, a request its organization's bulkhead would refuse", async () => {
    const { app, get, until, handled, release } = await appWith({ max: 100, perOrg: 50 }, { concurrency: 1, queue: 1, queueWaitMs: 0 });
    const inService = get('key_a');
    await until(1);
    // Reaches the bulkhead and waits there (its queue of 1).
    const queued = get('key_a');
    await until(2);
    const refused = await get('key_a');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json()).toMatchObject({
      error: { code: 'RATE_LIMITED', details: { policy: 'concurrency', limit: 1, queue: 1, retry_after_seconds: 1 } },
    });
    expect(handled()).toBe(2);
    // Another organization has its own bulkhead.
    const other = get('key_b');
    await until(3);
    release();
    expect((await inService).statusCode).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect([(await queued).statusCode, (await other).statusCode]).toEqual([200, 200]);
    await app.close();
  });

  it('judges a burst that arrived at once as a whole: what fits its places and queue goes on, the rest is refused first', async () => {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const { app, get, until, handled, release } = await appWith({ max: 100, perOrg: 50 }, { concurrency: 1, queue: 1, queueWaitMs: 0 }, 20);
    const inService = get('key_a');
    await until(1);
    await pause(40);
    // Five at once, each some time on its way to the bulkhead: only one fits behind the one in service.
    const burst = Array.from({ length: 5 }, () => get('key_a'));
    await until(2);
    await pause(40);
    release();
    expect((await inService).statusCode).toBe(200);
    await pause(10);
    release();
    const answers = await Promise.all(burst);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 429, 429, 429, 429]);
    expect(answers.find((answer) => answer.statusCode === 429)!.json()).toMatchObject({
      error: { code: 'RATE_LIMITED', details: { policy: 'concurrency', limit: 1, queue: 1 } },
    });
    // The four were refused before any handler: only the one in service and the admitted one were handled.
    expect(handled()).toBe(2);
    await app.close();
  });

  it("answers a refusal with the API's headers, its request id in both header and body, and reports it", async () => {
    const { app, get, until, refused, release } = await appWith({ max: 10, perOrg: 1 }, { concurrency: 5, queue: 5, queueWaitMs: 0 });
    const held = get('key_a');
    await until(1);
    const answer = await get('key_a', { origin: 'https://app.example' });
    expect(answer.statusCode).toBe(429);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    const body = answer.json() as { meta: { request_id: string } };
    expect(answer.headers.get('x-request-id')).toBe(body.meta.request_id);
    expect(body.meta.request_id).toMatch(/^req_/);
    expect(refused).toEqual(['RATE_LIMITED']);
    release();
    await held;
    await app.close();
  });

  it('refuses nothing once the shutdown has begun: every request reaches the process, which answers it then', async () => {
    const { app, get, until, state, handled, release } = await appWith(
      { max: 10, perOrg: 1 },
      { concurrency: 5, queue: 5, queueWaitMs: 0 },
    );
    state.serving = false;
    const both = [get('key_a'), get('key_a')];
    await until(2);
    expect(handled()).toBe(2);
    release();
    expect((await Promise.all(both)).map((answer) => answer.statusCode)).toEqual([200, 200]);
    await app.close();
  });
});
