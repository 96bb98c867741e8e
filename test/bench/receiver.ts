import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  /** Date.now() when the request's body had arrived. */
  at: number;
  eventId: string;
  /** The created record's id (data.object.id), to match a delivery with the write that caused it. */
  objectId: string;
  /** The request path: each subscription of a fan-out has its own, so duplicates can be told apart. */
  path: string;
}

/**
 * A fast loopback webhook receiver: answers 200 at once and keeps one small record per delivery. No signature
 * checks: the benchmark measures the sender, and a slow receiver would be the bound instead.
 */
export async function startFastReceiver() {
  const arrivals: Arrival[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string; data?: { object?: { id?: string } } };
        arrivals.push({ at, eventId: event.id ?? '', objectId: event.data?.object?.id ?? '', path: request.url ?? '' });
      } catch {
        arrivals.push({ at, eventId: '', objectId: '', path: request.url ?? '' });
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    /** The URL of subscription number `n`. */
    url: (n: number) => `http://127.0.0.1:${port}/hook/${n}`,
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
