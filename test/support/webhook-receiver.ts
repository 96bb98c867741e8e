import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contractViolation } from './event-contract';

export interface ReceivedRequest {
  /** Raw body bytes as text, exactly as received: signatures are checked over these. */
  body: string;
  headers: IncomingHttpHeaders;
  /** The parsed body. */
  event: { id: string; type: string; created_at: string; api_version: string; data: any };
  receivedAt: number;
  /** The status the receiver answered (null while held or when the connection died). */
  answered: number | null;
}

/** How the receiver answers the next request: a status, optional headers and body, an optional delay, or hold forever. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  /** Never answer (the request stays open until the sender gives up or dies). */
  hold?: boolean;
}

/**
 * A loopback HTTP receiver whose answer can be changed mid-test (`answerWith`, or `script` for a sequence), and
 * which records every request with its raw body.
 */
export async function startReceiver(initial: Answer = { status: 200 }) {
  const received: ReceivedRequest[] = [];
  /** Deliveries whose body breaks the event catalogue: waitFor fails on the first. */
  const violations: string[] = [];
  const held: ServerResponse[] = [];
  let answer: Answer = initial;
  let script: Answer[] = [];

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let event: ReceivedRequest['event'];
      try {
        event = JSON.parse(body) as ReceivedRequest['event'];
      } catch {
        event = { id: '', type: '', created_at: '', api_version: '', data: null };
      }
      const entry: ReceivedRequest = { body, headers: request.headers, event, receivedAt: Date.now(), answered: null };
      received.push(entry);
      const violation = event.type ? contractViolation(event) : null;
      if (violation) violations.push(violation);
      const current = script.shift() ?? answer;
      if (current.hold) {
        held.push(response);
        return;
      }
      const reply = () => {
        if (response.destroyed) return;
        entry.answered = current.status;
        response.writeHead(current.status, { 'content-type': 'text/plain', ...current.headers });
        response.end(current.body ?? `answer ${current.status}`);
      };
      if (current.delayMs) setTimeout(reply, current.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** Every later request gets this answer. */
    answerWith(next: Answer) {
      answer = next;
    },
    /** The next requests get these answers in order, then the standing answer. */
    script(answers: Answer[]) {
      script = [...answers];
    },
    ofType: (type: string) => received.filter((entry) => entry.event.type === type),
    async waitFor(predicate: (all: ReceivedRequest[]) => boolean, timeoutMs = 10_000): Promise<ReceivedRequest[]> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (violations.length > 0) throw new Error(`deliveries that break the event catalogue:\n${violations.join('\n')}`);
        if (predicate(received)) return received;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(
        `receiver: condition not met in ${timeoutMs} ms; got ${received.length} requests: ${received.map((entry) => entry.event.type).join(', ')}`,
      );
    },
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Polls `check` until it returns a value other than undefined. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} not reached in ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
