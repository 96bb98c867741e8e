import { Server, ServerCredentials, type sendUnaryData, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { AgentServiceService } from '@crm/proto/gen/agents/v1/agents';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../deploy/lib/ports';
import { startService, waitUntil } from '../../deploy/lib/processes';
import { eventually } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

// A gateway of its own whose agents address is a gRPC server that accepts every call and, until told otherwise,
// never answers, and whose messaging address is a port nobody listens on. Its CRM and webhooks are the real ones.
const REQUEST_TIMEOUT_MS = 1_500;
const BREAKER_COOLDOWN_MS = 2_000;

/** The agents service as a black hole: calls are held until `answer` is set, then answered with empty lists. */
async function blackHoleAgents() {
  const state = { answering: false };
  const implementation: UntypedServiceImplementation = Object.fromEntries(
    Object.keys(AgentServiceService).map((method) => [
      method,
      (_call: unknown, callback: sendUnaryData<unknown>) => {
        if (state.answering) callback(null, { items: [], page: undefined });
      },
    ]),
  );
  const server = new Server();
  server.addService(AgentServiceService, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { port, state, close: () => server.forceShutdown() };
}

interface Timed {
  status: number;
  ms: number;
  retryAfter: string | null;
  body: { error?: { code: string; type: string } };
}

const cleanups: Array<() => Promise<void> | void> = [];
let baseUrl = '';
let org: TestOrg;
let agents: Awaited<ReturnType<typeof blackHoleAgents>>;

async function get(path: string): Promise<Timed> {
  const started = Date.now();
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${org.key}` } });
  const body = (await response.json()) as Timed['body'];
  return { status: response.status, ms: Date.now() - started, retryAfter: response.headers.get('retry-after'), body };
}

beforeAll(async () => {
  const { env, logDir } = testSystem();
  org = await createTestOrg();
  agents = await blackHoleAgents();
  cleanups.push(() => agents.close());
  const port = await freePort();
  const deadPort = await freePort();
  const logFile = join(logDir, `gateway-deadlines-${port}.log`);
  const gateway = startService(
    'gateway-deadlines',
    'gateway/src/main.ts',
    {
      ...env,
      PORT: String(port),
      METRICS_PORT: '0',
      AGENTS_GRPC_URL: `127.0.0.1:${agents.port}`,
      MESSAGING_GRPC_URL: `127.0.0.1:${deadPort}`,
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      BREAKER_FAILURES: '3',
      BREAKER_COOLDOWN_MS: String(BREAKER_COOLDOWN_MS),
    },
    logFile,
  );
  cleanups.push(() => gateway.stop('SIGKILL'));
  baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil('the deadlines gateway', async () => (await fetch(`${baseUrl}/readyz`)).ok, {
    timeoutMs: 60_000,
    process: gateway,
    logFile,
  });
  // The key's first verification (a CRM call) happens here, so the timings below measure the routes only.
  expect((await get('/v1/contacts?limit=1')).status).toBe(200);
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('a dead or slow service answers a clear 503/504 quickly instead of hanging', () => {
  it('a service whose port is closed answers 503 SERVICE_UNAVAILABLE with Retry-After at once', async () => {
    const answer = await get('/v1/conversations');
    expect(answer.status).toBe(503);
    expect(answer.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', type: 'unavailable' });
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    // Not the request budget (1.5 s), nor a reconnect backoff.
    expect(answer.ms).toBeLessThan(1_000);
  });

  it(
    'a service that never answers: 504 after the request budget, then a fast 503 once its breaker opens, CRM unaffected',
    { timeout: 60_000 },
    async () => {
      // Three calls held by the black hole while a CRM route is served beside them.
      const held = [get('/v1/ai-agents'), get('/v1/ai-agents'), get('/v1/ai-agents')];
      await new Promise((resolve) => setTimeout(resolve, 300));
      const contacts = await get('/v1/contacts?limit=5');
      expect(contacts.status).toBe(200);
      expect(contacts.ms).toBeLessThan(REQUEST_TIMEOUT_MS);

      for (const answer of await Promise.all(held)) {
        expect(answer.status).toBe(504);
        expect(answer.body.error).toMatchObject({ code: 'UPSTREAM_TIMEOUT', type: 'unavailable' });
        expect(answer.retryAfter).toBe('1');
        // Ended by the request's own budget (1.5 s), far from the 15 s call default.
        expect(answer.ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 300);
        expect(answer.ms).toBeLessThan(4_000);
      }

      // Three consecutive timeouts opened the agents breaker: refused at once, with the rest of the cooldown.
      const refused = await get('/v1/ai-agents');
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', type: 'unavailable' });
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(BREAKER_COOLDOWN_MS / 1000);
      expect(refused.ms).toBeLessThan(1_000);
      expect((await get('/v1/contacts?limit=5')).status).toBe(200);

      // The service recovers: after the cooldown one probe goes through, succeeds and closes the breaker.
      agents.state.answering = true;
      await eventually('the agents breaker to close', async () => (await get('/v1/ai-agents')).status === 200, 15_000);
      const after = await Promise.all([get('/v1/ai-agents'), get('/v1/ai-agents'), get('/v1/ai-agents')]);
      expect(after.map((answer) => answer.status)).toEqual([200, 200, 200]);
    },
  );
});
