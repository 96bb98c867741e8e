import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  /** Date.now() when the request's body had arrived. */
  at: number;
  eventId: string;
  type: string;
  /** The event's created_at, in ms. */
  createdAt: number;
  /** The created record's id (data.object.id), to match a delivery with the write that caused it. */
  objectId: string;
  /** The request path: each subscription has its own, so duplicates can be told apart. */
  path: string;
}

/** How the receiver answers a path: at once with 200 (the default), after a delay, or with 500. */
export type Behaviour = { status: number; delayMs: number };

const FAST: Behaviour = { status: 200, delayMs: 0 };

/**
 * A loopback webhook receiver for the benchmark: answers each subscription's path as told (`/fast/<n>` at once,
 * `/slow/<n>` after a delay, `/fail/<n>` with 500) and keeps one small record per delivery it accepted. No signature
 * checks: the benchmark measures the sender, and a slow receiver would be the bound instead.
 */
export async function startFastReceiver(options: { slowMs?: number } = {}) {
  const arrivals: Arrival[] = [];
  const behaviours: Record<string, Behaviour> = {
    fast: FAST,
    slow: { status: 200, delayMs: options.slowMs ?? 2_000 },
    fail: { status: 500, delayMs: 0 },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      const path = request.url ?? '';
      const behaviour = behaviours[path.split('/')[1] ?? ''] ?? FAST;
      const answer = () => response.writeHead(behaviour.status, { 'content-type': 'text/plain' }).end('ok');
      if (behaviour.delayMs > 0) setTimeout(answer, behaviour.delayMs);
      else answer();
      if (behaviour.status >= 300) return;
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          id?: string;
          type?: string;
          created_at?: string;
          data?: { object?: { id?: string } };
        };
        arrivals.push({
          at,
          eventId: event.id ?? '',
          type: event.type ?? '',
          createdAt: Date.parse(event.created_at ?? ''),
          objectId: event.data?.object?.id ?? '',
          path,
        });
      } catch {
        arrivals.push({ at, eventId: '', type: '', createdAt: NaN, objectId: '', path });
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    /** The URL of subscription number `n`, answered the `kind` way. */
    url: (n: number | string, kind: 'fast' | 'slow' | 'fail' = 'fast') => `http://127.0.0.1:${port}/${kind}/${n}`,
    arrivals,
    /** Resolves once `done()` holds, or after `timeoutMs` (the caller reports what did arrive). */
    async waitUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      while (!done()) {
        if (Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return true;
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

export type FastReceiver = Awaited<ReturnType<typeof startFastReceiver>>;
