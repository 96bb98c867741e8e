import { fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';

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
 * The receiver's HTTP server: answers each subscription's path as told (`/fast/<n>` at once, `/slow/<n>` after a
 * delay, `/fail/<n>` with 500) and reports one small record per delivery it accepted. No signature checks: the
 * benchmark measures the sender, and a slow receiver would be the bound instead.
 */
export function receiverServer(slowMs: number, onArrival: (arrival: Arrival) => void): Server {
  const behaviours: Record<string, Behaviour> = {
    fast: FAST,
    slow: { status: 200, delayMs: slowMs },
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
        onArrival({
          at,
          eventId: event.id ?? '',
          type: event.type ?? '',
          createdAt: Date.parse(event.created_at ?? ''),
          objectId: event.data?.object?.id ?? '',
          path,
        });
      } catch {
        onArrival({ at, eventId: '', type: '', createdAt: NaN, objectId: '', path });
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  return server;
}

/**
 * A loopback webhook receiver for the benchmark, in a process of its own (receiver.process.ts): in the benchmark's
 * process it shared the event loop with thousands of pending paced writes when the system fell behind, answered
 * late, and the deliveries timed out. Arrivals come back over the IPC channel, stamped by the receiver's clock.
 */
export async function startFastReceiver(options: { slowMs?: number } = {}) {
  const arrivals: Arrival[] = [];
  const child = fork(resolve(__dirname, 'receiver.process.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, RECEIVER_SLOW_MS: String(options.slowMs ?? 2_000) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((done, fail) => {
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`the receiver exited with ${String(code)} before listening`)));
    child.once('message', (message: { port: number }) => done(message.port));
  });
  child.on('message', (message: { arrivals?: Arrival[] }) => {
    if (message.arrivals) for (const arrival of message.arrivals) arrivals.push(arrival);
  });
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
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

export type FastReceiver = Awaited<ReturnType<typeof startFastReceiver>>;
