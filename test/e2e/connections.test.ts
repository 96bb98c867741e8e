import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startExtraGateway, type ExtraGateway } from '../support/extra-gateway';
import { createTestOrg } from '../support/orgs';

const BURST = 1_000;
/** The kernel caps every listen backlog at this. */
const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));

const gateways: ExtraGateway[] = [];
afterAll(async () => {
  for (const gateway of gateways) {
    gateway.process.child.kill('SIGCONT');
    await gateway.stop();
  }
});

/** Opens `count` connections at once; how many the kernel completed within `withinMs` (a dropped SYN is retried after 1 s). */
async function connectBurst(port: number, count: number, withinMs: number): Promise<number> {
  const sockets: Socket[] = [];
  const connected = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          sockets.push(socket);
          const timer = setTimeout(() => resolve(false), withinMs);
          socket.once('connect', () => (clearTimeout(timer), resolve(true)));
          socket.once('error', () => (clearTimeout(timer), resolve(false)));
        }),
    ),
  );
  for (const socket of sockets) socket.destroy();
  return connected.filter(Boolean).length;
}

// One client opening a thousand connections at once (the capacity bench's flood) filled Node's default backlog of
// 511: the kernel dropped the SYNs past it, and every other client's new connection in that moment waited 1 s or
// 3 s for its retry. The gateway listens with HTTP_LISTEN_BACKLOG (4,096; the kernel's somaxconn caps it).
describe('a burst of new connections', () => {
  it.skipIf(somaxconn < BURST)(
    `is queued for the gateway, not dropped: ${BURST} connections opened while it accepts none all complete at once`,
    { timeout: 90_000 },
    async () => {
      const gateway = await startExtraGateway('gateway-backlog', {});
      gateways.push(gateway);
      // Stopped, the process accepts nothing: each connection completes only if the kernel has room to queue it.
      gateway.process.child.kill('SIGSTOP');
      expect(await connectBurst(gateway.port, BURST, 700)).toBe(BURST);
      gateway.process.child.kill('SIGCONT');
      expect((await fetch(`${gateway.baseUrl}/healthz`)).status).toBe(200);
    },
  );
});

/** One GET on `agent`'s connection: its status, Retry-After and how long the answer took. */
function timedGet(agent: Agent, port: number, key: string): Promise<{ status: number; retryAfter: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    request({ agent, host: '127.0.0.1', port, path: '/v1/companies?limit=1', headers: { authorization: `Bearer ${key}` } }, (answer) => {
      answer.resume().on('end', () =>
        resolve({
          status: answer.statusCode ?? 0,
          retryAfter: Number(answer.headers['retry-after'] ?? 0),
          ms: performance.now() - started,
        }),
      );
    })
      .on('error', reject)
      .end();
  });
}

// A client that keeps sending after a 429 costs the gateway a request's CPU each time, taken from every other
// organization (docs/capacity.md, "Refusing a flood cheaply"): by default its connection is not read again for half
// to all of the Retry-After it was given (that connection only: the pause is per socket).
describe('a connection that ignores Retry-After', () => {
  it('is not read again for at least half its Retry-After after its first refusal', { timeout: 90_000 }, async () => {
    const gateway = await startExtraGateway('gateway-pause', { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_WINDOW_SECONDS: '2' });
    gateways.push(gateway);
    const org = await createTestOrg();
    const ignoring = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // Two requests a window are admitted; the third is refused, with a Retry-After of 1 or 2 s.
      let refused = await timedGet(ignoring, gateway.port, org.key);
      for (let i = 0; i < 4 && refused.status !== 429; i++) refused = await timedGet(ignoring, gateway.port, org.key);
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
      // The client sends again at once, on the same connection.
      const again = await timedGet(ignoring, gateway.port, org.key);
      // The pause is at least half of min(Retry-After, REFUSED_CONNECTION_PAUSE_MS = 1 s) from the refusal's answer.
      expect(again.ms).toBeGreaterThanOrEqual(450);
      expect([200, 429]).toContain(again.status);
    } finally {
      ignoring.destroy();
    }
  });
});
