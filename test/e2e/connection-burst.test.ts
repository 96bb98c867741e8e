import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startExtraGateway, type ExtraGateway } from '../support/extra-gateway';

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
