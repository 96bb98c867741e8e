import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { poolFor } from './connection-pool';

/** The time limit of a whole send (DNS, connect, request, answer): one timer, and what to stop when it runs out. */
export class Deadline {
  expired = false;
  private stop: (() => void) | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.stop?.();
    }, ms);
  }

  /** `stop` runs when the time is up (at once if it already is); it replaces the stage's previous one. */
  whenExpired(stop: () => void): void {
    this.stop = stop;
    if (this.expired) stop();
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

export interface Outcome {
  statusCode: number | null;
  timedOut: boolean;
  connectionError: string | null;
  excerpt: string | null;
  retryAfter: string | null;
  location: string | null;
}

export interface ExchangeInput {
  url: URL;
  hostname: string;
  port: number;
  address: string;
  body: string;
  headers: Readonly<Record<string, string>>;
  deadline: Deadline;
  maxExcerptBytes: number;
  maxReadBytes: number;
}

/** Headers the client computes itself; a caller-supplied value could desynchronise the framing or target. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/** Errors of a connection the receiver closed before answering: a kept-alive one it had just closed while idle. */
const CLOSED_BEFORE_ANSWER: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

const UNANSWERED = { statusCode: null, excerpt: null, retryAfter: null, location: null } as const;

/**
 * One POST to the vetted address. A kept-alive connection the receiver closed while idle fails the request that
 * reused it, before anything was answered; such a request is sent once more (the pool drops the closed connection,
 * so it goes on another one). The receiver saw nothing of it or, rarely, a duplicate: at least once.
 */
export async function exchange(input: ExchangeInput): Promise<Outcome> {
  const outcome = await exchangeOnce(input);
  if (outcome.closedBeforeAnswer && !input.deadline.expired) return exchangeOnce(input);
  return outcome;
}

/**
 * The request through the pool's dispatcher with a handler of our own rather than `request()`: no response stream,
 * no async resource, no abort signal per delivery (a fifth of the sender's CPU in the drain profile, BENCHMARKS.md).
 * The answer's body is read up to maxReadBytes, keeping its first maxExcerptBytes; at the cap the request is aborted
 * and its connection dropped. Decision: a timeout while the body is still arriving is a failed attempt even if a
 * 2xx status was already received ("timeout = failure"; the exchange as a whole is bounded); a reset while reading
 * the body does not change a received status.
 */
function exchangeOnce(input: ExchangeInput): Promise<Outcome & { closedBeforeAnswer?: boolean }> {
  return new Promise((resolve) => {
    const { deadline } = input;
    let controller: Dispatcher.DispatchController | undefined;
    let statusCode: number | null = null;
    let retryAfter: string | null = null;
    let location: string | null = null;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let readBytes = 0;
    let settled = false;
    const settle = (outcome: Outcome & { closedBeforeAnswer?: boolean }): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const answered = (cut: boolean): void =>
      settle({
        statusCode,
        excerpt: new StringDecoder('utf8').write(kept.length === 1 ? (kept[0] as Buffer) : Buffer.concat(kept)),
        retryAfter,
        location,
        timedOut: cut && deadline.expired,
        connectionError: null,
      });
    const stop = (reason: string): void => controller?.abort(new Error(reason));

    deadline.whenExpired(() => {
      if (statusCode === null) settle({ ...UNANSWERED, timedOut: true, connectionError: null });
      else answered(true);
      stop('timeout');
    });
    if (settled) return;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        // Timed out while queued for a connection: it is never sent.
        if (settled) stop('timeout');
      },
      onResponseStart(_controller, status, headers) {
        if (status < 200) return; // an informational answer: the final one follows
        statusCode = status;
        retryAfter = headerValue(headers['retry-after']);
        location = headerValue(headers.location);
      },
      onResponseData(_controller, chunk) {
        readBytes += chunk.length;
        if (keptBytes < input.maxExcerptBytes) {
          const slice = chunk.subarray(0, input.maxExcerptBytes - keptBytes);
          kept.push(slice);
          keptBytes += slice.length;
        }
        // Cap reached: we have what we keep; stop reading and drop the connection.
        if (readBytes >= input.maxReadBytes && !settled) {
          answered(false);
          stop('answer too long');
        }
      },
      onResponseEnd() {
        answered(false);
      },
      onResponseError(_controller, error) {
        if (statusCode !== null) return answered(true);
        const code = (error as { code?: unknown }).code;
        const detail = typeof code === 'string' ? code : error.message;
        settle({ ...UNANSWERED, timedOut: false, connectionError: detail, closedBeforeAnswer: CLOSED_BEFORE_ANSWER.has(detail) });
      },
    };
    const pool = poolFor({ https: input.url.protocol === 'https:', address: input.address, port: input.port, hostname: input.hostname });
    pool.dispatch(
      { method: 'POST', path: `${input.url.pathname}${input.url.search}`, headers: requestHeaders(input), body: input.body },
      handler,
    );
  });
}

/** The caller's headers but the reserved ones, and the URL's host (the connection itself goes to the vetted address). */
function requestHeaders(input: ExchangeInput): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name in input.headers) {
    if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name] = input.headers[name] as string;
  }
  headers.host = input.url.host;
  return headers;
}

const headerValue = (value: string | string[] | undefined): string | null => (typeof value === 'string' ? value : (value?.[0] ?? null));
