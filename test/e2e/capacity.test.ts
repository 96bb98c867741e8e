import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { AgentServiceService } from '@crm/proto/gen/agents/v1/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExtraGateway, type ExtraGateway } from '../support/extra-gateway';
import { createTestOrg, type TestOrg } from '../support/orgs';

// Per-organization capacity (docs/capacity.md), each behaviour on a gateway of its own over the running system.
// Where one organization must keep a backend busy, its agents address is a gRPC server that holds every call of
// that organization (until the caller's deadline) and answers every other organization at once: one tenant whose
// work the backend cannot finish, beside tenants it serves normally.

const REQUEST_TIMEOUT_MS = 1_500;

/** The agents service, busy for `busyOrgs` (their calls are held, never answered) and answering the others. */
async function agentsBusyFor(busyOrgs: Set<string>) {
  const received = new Map<string, number>();
  const implementation: UntypedServiceImplementation = Object.fromEntries(
    Object.keys(AgentServiceService).map((method) => [
      method,
      (call: ServerUnaryCall<{ org_id?: string }, unknown>, callback: sendUnaryData<unknown>) => {
        const orgId = call.request.org_id ?? '';
        received.set(orgId, (received.get(orgId) ?? 0) + 1);
        if (!busyOrgs.has(orgId)) callback(null, { items: [], page: undefined });
      },
    ]),
  );
  const server = new Server();
  server.addService(AgentServiceService, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { port, received: (orgId: string) => received.get(orgId) ?? 0, close: () => server.forceShutdown() };
}

interface Answer {
  status: number;
  ms: number;
  retryAfter: string | null;
  body: { error?: { type: string; code: string; details?: Record<string, unknown> }; meta?: { request_id: string } };
}

async function get(baseUrl: string, key: string, path: string): Promise<Answer> {
  const started = Date.now();
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await response.json()) as Answer['body'];
  return { status: response.status, ms: Date.now() - started, retryAfter: response.headers.get('retry-after'), body };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A refusal to come back in a second: 429 with Retry-After: 1, in the envelope with a request id. */
function expectRetryInASecond(answer: Answer, details: Record<string, unknown>) {
  expect(answer.status).toBe(429);
  expect(answer.retryAfter).toBe('1');
  expect(answer.body.error).toMatchObject({ type: 'rate_limited', code: 'RATE_LIMITED', details });
  expect(answer.body.meta?.request_id).toMatch(/^req_/);
}

/** Requests from `key` one after another until `until` settles; their answers. */
async function pollWhile(baseUrl: string, key: string, path: string, until: Promise<unknown>): Promise<Answer[]> {
  let done = false;
  void until.finally(() => (done = true));
  const answers: Answer[] = [];
  while (!done) {
    answers.push(await get(baseUrl, key, path));
    await sleep(50);
  }
  return answers;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('the default bulkheads with ordinary traffic', () => {
  it(
    'serve a burst of 50 parallel requests of one free-plan key within the documented rate limits in full',
    { timeout: 60_000 },
    async () => {
      // The product's limits (100 per key and 300 per organization per second) and bulkheads, as a user meets them.
      const gateway = await startExtraGateway('gateway-defaults', {
        RATE_LIMIT_PER_SECOND: '100',
        RATE_LIMIT_ORG_PER_SECOND: '300',
        RATE_LIMIT_WINDOW_SECONDS: '1',
      });
      cleanups.push(() => gateway.stop());
      const org = await createTestOrg({ plan: 'free' });
      const paths = ['/v1/contacts?limit=100', '/v1/deals?limit=100', '/v1/ai-agents', '/v1/contacts?limit=1', '/v1/webhooks'];
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => get(gateway.baseUrl, org.key, paths[i % paths.length] ?? '')));
      expect(answers.filter((answer) => answer.status !== 200).map((answer) => [answer.status, answer.body.error?.code])).toEqual([]);
    },
  );
});

describe('one organization keeping a backend busy', () => {
  let busy: TestOrg;
  let calm: TestOrg;
  let agents: Awaited<ReturnType<typeof agentsBusyFor>>;
  let gateway: ExtraGateway;
  const busyOrgs = new Set<string>();

  beforeAll(async () => {
    [busy, calm] = await Promise.all([createTestOrg(), createTestOrg()]);
    busyOrgs.add(busy.orgId);
    agents = await agentsBusyFor(busyOrgs);
    cleanups.push(() => agents.close());
    gateway = await startExtraGateway('gateway-capacity', {
      AGENTS_GRPC_URL: `127.0.0.1:${agents.port}`,
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      BREAKER_FAILURES: '3',
      TENANT_CONCURRENCY: '3',
      TENANT_QUEUE_LIMIT: '3',
      TENANT_QUEUE_WAIT_MS: '300',
    });
    cleanups.push(() => gateway.stop());
    // Both keys verified once, so the timings below measure admission, not the first key lookup.
    for (const org of [busy, calm]) expect((await get(gateway.baseUrl, org.key, '/v1/contacts?limit=1')).status).toBe(200);
  }, 120_000);

  it(
    'sheds the organization over its bulkhead with 429 + Retry-After in the envelope, never starting that work, while another organization is served',
    { timeout: 30_000 },
    async () => {
      const many = (count: number) => Array.from({ length: count }, () => get(gateway.baseUrl, busy.key, '/v1/ai-agents'));
      // Three held requests fill the busy organization's three places.
      const held = many(3);
      await sleep(200);
      // Three wait in its queue (of 3) and are refused after the 300 ms wait; the seventh finds the queue full.
      const queued = many(3);
      await sleep(50);
      const overflow = await get(gateway.baseUrl, busy.key, '/v1/ai-agents');
      const calmAnswers = await Promise.all([
        get(gateway.baseUrl, calm.key, '/v1/ai-agents'),
        get(gateway.baseUrl, calm.key, '/v1/contacts?limit=1'),
      ]);

      expectRetryInASecond(overflow, { policy: 'concurrency', limit: 3, queue: 3, retry_after_seconds: 1 });
      expect(overflow.ms).toBeLessThan(REQUEST_TIMEOUT_MS);
      for (const answer of await Promise.all(queued)) {
        expect(answer.status).toBe(429);
        expect(answer.retryAfter).toBe('1');
        expect(answer.body.error?.details).toMatchObject({ policy: 'concurrency' });
      }
      expect(calmAnswers.map((answer) => answer.status)).toEqual([200, 200]);

      // The held ones end at their deadline; the refused ones never reached the service.
      expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([504, 504, 504]);
      expect(agents.received(busy.orgId)).toBe(3);
    },
  );

  it("does not open the backend's breaker for everyone when one organization's calls time out", { timeout: 30_000 }, async () => {
    // Three waves of the busy organization's calls timing out together: three consecutive failures each, enough
    // (BREAKER_FAILURES=3) to open a breaker that counted every organization's failures as the service's.
    const waves = (async () => {
      const answers: Answer[] = [];
      for (let wave = 0; wave < 3; wave++)
        answers.push(...(await Promise.all([1, 2, 3].map(() => get(gateway.baseUrl, busy.key, '/v1/ai-agents')))));
      return answers;
    })();
    const calmAnswers = await pollWhile(gateway.baseUrl, calm.key, '/v1/ai-agents', waves);
    expect((await waves).map((answer) => answer.status)).toEqual(Array.from({ length: 9 }, () => 504));
    expect(calmAnswers.length).toBeGreaterThan(5);
    expect(calmAnswers.filter((answer) => answer.status !== 200)).toEqual([]);
    expect((await get(gateway.baseUrl, calm.key, '/v1/ai-agents')).status).toBe(200);
  });

  it('still opens the breaker when the backend fails every organization', { timeout: 30_000 }, async () => {
    busyOrgs.add(calm.orgId);
    // The calm organization's last answer must leave the breaker's window (10 s default) before the streak counts.
    await sleep(10_500);
    const answers = await Promise.all([1, 2, 3].map(() => get(gateway.baseUrl, calm.key, '/v1/ai-agents')));
    expect(answers.map((answer) => answer.status)).toEqual([504, 504, 504]);
    const refused = await get(gateway.baseUrl, busy.key, '/v1/ai-agents');
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    busyOrgs.clear();
  });
});

describe("one organization's open requests", () => {
  it(
    'are capped per organization: one more is refused 429 policy inflight at once, another organization is served',
    { timeout: 60_000 },
    async () => {
      const [busy, calm] = await Promise.all([createTestOrg(), createTestOrg()]);
      const agents = await agentsBusyFor(new Set([busy.orgId]));
      cleanups.push(() => agents.close());
      // The bulkheads off, so that only the open-request caps decide: 3 per organization, 5 in all.
      const gateway = await startExtraGateway('gateway-inflight', {
        AGENTS_GRPC_URL: `127.0.0.1:${agents.port}`,
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        TENANT_CONCURRENCY: '0',
        MAX_INFLIGHT_REQUESTS: '5',
        MAX_INFLIGHT_REQUESTS_PER_ORG: '3',
      });
      cleanups.push(() => gateway.stop());
      for (const org of [busy, calm]) expect((await get(gateway.baseUrl, org.key, '/v1/contacts?limit=1')).status).toBe(200);

      const held = [1, 2, 3].map(() => get(gateway.baseUrl, busy.key, '/v1/ai-agents'));
      while (agents.received(busy.orgId) < 3) await sleep(20);
      const refused = await get(gateway.baseUrl, busy.key, '/v1/contacts?limit=1');
      const calmAnswers = await Promise.all([
        get(gateway.baseUrl, calm.key, '/v1/ai-agents'),
        get(gateway.baseUrl, calm.key, '/v1/contacts?limit=1'),
      ]);

      expectRetryInASecond(refused, { policy: 'inflight', limit: 3, retry_after_seconds: 1 });
      expect(calmAnswers.map((answer) => answer.status)).toEqual([200, 200]);
      expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([504, 504, 504]);
      // Its requests ended: the organization is served again.
      expect((await get(gateway.baseUrl, busy.key, '/v1/contacts?limit=1')).status).toBe(200);
    },
  );
});

describe('cost-aware limits', () => {
  const WINDOW_SECONDS = 5;

  /** Waits until a new window has just begun, so that a quick series falls inside one window. */
  const startOfWindow = () => sleep(WINDOW_SECONDS * 1000 - (Date.now() % (WINDOW_SECONDS * 1000)) + 20);

  it('charges GET /v1/tags five units of the key budget and a page one', { timeout: 60_000 }, async () => {
    const gateway = await startExtraGateway('gateway-costs', {
      RATE_LIMIT_PER_SECOND: '2.4', // 12 units per 5 s window
      RATE_LIMIT_ORG_PER_SECOND: '0',
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      RATE_LIMIT_STORE_TIMEOUT_MS: '10000',
    });
    cleanups.push(() => gateway.stop());
    const org = await createTestOrg();
    await startOfWindow();
    const tags = [await get(gateway.baseUrl, org.key, '/v1/tags'), await get(gateway.baseUrl, org.key, '/v1/tags')];
    expect(tags.map((answer) => answer.status)).toEqual([200, 200]);
    const third = await get(gateway.baseUrl, org.key, '/v1/tags');
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'key', limit: 12, cost: 5 } });
    // The refused request was not charged: two units are left for two pages.
    const pages = [
      await get(gateway.baseUrl, org.key, '/v1/contacts?limit=1'),
      await get(gateway.baseUrl, org.key, '/v1/contacts?limit=1'),
    ];
    expect(pages.map((answer) => answer.status)).toEqual([200, 200]);
    expect((await get(gateway.baseUrl, org.key, '/v1/contacts?limit=1')).status).toBe(429);
  });

  it('keeps limiting, in the replica alone, when the shared store does not answer in time', { timeout: 60_000 }, async () => {
    // A 1 ms budget for the store: nearly every request is counted by the replica's fallback instead.
    const gateway = await startExtraGateway('gateway-fallback', {
      RATE_LIMIT_PER_SECOND: '1', // 5 per 5 s window
      RATE_LIMIT_ORG_PER_SECOND: '0',
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      RATE_LIMIT_STORE_TIMEOUT_MS: '1',
    });
    cleanups.push(() => gateway.stop());
    const org = await createTestOrg();
    await startOfWindow();
    const answers: Answer[] = [];
    for (let i = 0; i < 15; i++) answers.push(await get(gateway.baseUrl, org.key, '/v1/contacts?limit=1'));
    // Each request is counted in the store or in the replica, each with a quota of 5: at most 10 pass, never all 15.
    const admitted = answers.filter((answer) => answer.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(5);
    expect(admitted).toBeLessThanOrEqual(10);
    const refused = answers.find((answer) => answer.status === 429);
    expect(refused?.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'key' } });
    expect(Number(refused?.retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it(
    'throttles an address that keeps sending unknown keys, before looking them up; known keys still pass',
    { timeout: 60_000 },
    async () => {
      // An hour's window, so that the few requests below fall in one window (fixed windows).
      const gateway = await startExtraGateway('gateway-auth-throttle', { AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_SECONDS: '3600' });
      cleanups.push(() => gateway.stop());
      const org = await createTestOrg();
      expect((await get(gateway.baseUrl, org.key, '/v1/contacts?limit=1')).status).toBe(200);
      const guess = (i: number) => get(gateway.baseUrl, `sk_live_${'0'.repeat(40)}${i}`, '/v1/contacts');
      for (let i = 0; i < 3; i++) expect((await guess(i)).status).toBe(401);
      const throttled = await guess(3);
      expect(throttled.status).toBe(429);
      expect(throttled.body.error).toMatchObject({
        type: 'rate_limited',
        code: 'RATE_LIMITED',
        details: { policy: 'auth_failures', limit: 3, window_seconds: 3600 },
      });
      expect(Number(throttled.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(throttled.retryAfter)).toBeLessThanOrEqual(3600);
      // The key that authenticated before still does.
      expect((await get(gateway.baseUrl, org.key, '/v1/contacts?limit=1')).status).toBe(200);
    },
  );
});
