import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { EMPTY_ALLOW_LIST, resolveVettedAddress, type AllowList, type Resolver } from './address-guard';
import { poolFor } from './connection-pool';
import { checkTargetUrlCached, vettedAddressCached } from './target-cache';
import { shouldPauseSubscription } from './retry-schedule';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_EXCERPT_BYTES = 1024;
/** Stop reading a response after this many bytes: receivers are not allowed to make us buffer or drain gigabytes. */
export const DEFAULT_MAX_READ_BYTES = 64 * 1024;

export type SendError = 'timeout' | 'connection_error' | 'blocked_address' | 'redirect_refused' | `http_${number}`;

/** Longest Location kept in the refusal's detail: it is the receiver's text, shown back to its owner. */
const MAX_LOCATION_CHARS = 200;

export interface SendResult {
  /** True only for a 2xx status received (with the body read or capped) within the timeout. */
  ok: boolean;
  statusCode: number | null;
  error: SendError | null;
  durationMs: number;
  /** First maxExcerptBytes of the response body (utf8, incomplete trailing character dropped); null when no response. */
  responseExcerpt: string | null;
  /** Raw Retry-After header, for nextAttemptDelay. */
  retryAfter: string | null;
  /** 410 Gone: the caller should pause the subscription instead of retrying. */
  pauseSubscription: boolean;
  /** Diagnostic detail for logs/attempt records (e.g. "ECONNREFUSED", the block reason); not for receivers. */
  errorDetail: string | null;
}

export interface SendWebhookInput {
  url: string;
  /** Exact body bytes that were signed. */
  body: string;
  headers: Readonly<Record<string, string>>;
  /** Bounds the WHOLE exchange: DNS, connect, TLS, request, response headers and body. */
  timeoutMs?: number;
  allowList?: AllowList;
  maxExcerptBytes?: number;
  maxReadBytes?: number;
  /** Injectable DNS for tests (simulating rebinding); defaults to dns.promises.lookup. */
  resolver?: Resolver;
}

/** Headers the client computes itself; a caller-supplied value could desynchronise the framing or target. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

interface Outcome {
  statusCode: number | null;
  timedOut: boolean;
  connectionError: string | null;
  excerpt: string | null;
  retryAfter: string | null;
  location: string | null;
}

const TIMED_OUT = Symbol('timed-out');

function untilAbort(signal: AbortSignal): Promise<typeof TIMED_OUT> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(TIMED_OUT);
    else {
      signal.addEventListener(
        'abort',
        () => {
          resolve(TIMED_OUT);
        },
        { once: true },
      );
    }
  });
}

const redirectDetail = (statusCode: number | null, location: string | null): string =>
  `${String(statusCode)} to ${location === null ? '(no Location)' : location.slice(0, MAX_LOCATION_CHARS)}; redirects are never followed`;

/**
 * POSTs one webhook. Never throws for network or receiver problems: every failure is returned so
 * the caller can record the attempt and schedule a retry. Redirects are never followed: a 3xx is the
 * failure `redirect_refused`, because following it would let a receiver bounce us to an unchecked
 * (e.g. internal) URL; the Location target gets no request.
 */
export async function sendWebhook(input: SendWebhookInput): Promise<SendResult> {
  const started = performance.now();
  const allowList = input.allowList ?? EMPTY_ALLOW_LIST;
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxExcerptBytes = input.maxExcerptBytes ?? DEFAULT_MAX_EXCERPT_BYTES;
  const maxReadBytes = Math.max(input.maxReadBytes ?? DEFAULT_MAX_READ_BYTES, maxExcerptBytes);

  const finish = (outcome: Outcome, errorDetail: string | null = null): SendResult => {
    const { statusCode } = outcome;
    const is2xx = statusCode !== null && statusCode >= 200 && statusCode < 300;
    let error: SendError | null = null;
    if (outcome.timedOut) error = 'timeout';
    else if (outcome.connectionError !== null) error = 'connection_error';
    else if (statusCode !== null && statusCode >= 300 && statusCode < 400) error = 'redirect_refused';
    else if (!is2xx) error = statusCode === null ? 'connection_error' : `http_${statusCode}`;
    return {
      ok: error === null,
      statusCode,
      error,
      durationMs: Math.round(performance.now() - started),
      responseExcerpt: outcome.excerpt,
      retryAfter: outcome.retryAfter,
      pauseSubscription: shouldPauseSubscription(statusCode),
      errorDetail:
        errorDetail ??
        outcome.connectionError ??
        (outcome.timedOut ? `no complete response within ${String(timeoutMs)} ms` : null) ??
        (error === 'redirect_refused' ? redirectDetail(statusCode, outcome.location) : null),
    };
  };
  const noResponse = { statusCode: null, excerpt: null, retryAfter: null, location: null };
  const blocked = (reason: string): SendResult => ({
    ...finish({ ...noResponse, timedOut: false, connectionError: null }, reason),
    error: 'blocked_address',
  });

  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort();
  }, timeoutMs);
  try {
    // Re-checked at delivery time: the allow-list or the rules may have changed since the
    // subscription was created.
    const target = checkTargetUrlCached(input.url, allowList);
    if (!target.ok) return blocked(target.reason);

    const verdict = input.resolver
      ? resolveVettedAddress(target.hostname, allowList, input.resolver)
      : vettedAddressCached(target.hostname, allowList);
    const vetted = verdict instanceof Promise ? await Promise.race([verdict, untilAbort(controller.signal)]) : verdict;
    if (vetted === TIMED_OUT) return finish({ ...noResponse, timedOut: true, connectionError: null });
    if (!vetted.ok) {
      return vetted.code === 'unresolvable'
        ? finish({ ...noResponse, timedOut: false, connectionError: vetted.reason })
        : blocked(vetted.reason);
    }

    const outcome = await exchange({
      url: target.url,
      hostname: target.hostname,
      port: target.port,
      address: vetted.address,
      body: input.body,
      headers: input.headers,
      signal: controller.signal,
      maxExcerptBytes,
      maxReadBytes,
    });
    return finish(outcome);
  } catch (err) {
    // Defensive: nothing above should throw, but a delivery worker must never crash on one send.
    return finish({ ...noResponse, timedOut: false, connectionError: err instanceof Error ? err.message : 'unknown error' });
  } finally {
    clearTimeout(timer);
  }
}

interface ExchangeInput {
  url: URL;
  hostname: string;
  port: number;
  address: string;
  body: string;
  headers: Readonly<Record<string, string>>;
  signal: AbortSignal;
  maxExcerptBytes: number;
  maxReadBytes: number;
}

/** Errors of a connection the receiver closed before answering: a kept-alive one it had just closed while idle. */
const CLOSED_BEFORE_ANSWER: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * A kept-alive connection the receiver closed while idle fails the request that reused it, before anything was
 * answered; such a request is sent once more (the pool drops the closed connection, so it goes on another one).
 * The receiver saw nothing of it or, rarely, a duplicate: at least once.
 */
async function exchange(input: ExchangeInput): Promise<Outcome> {
  const outcome = await exchangeOnce(input);
  if (outcome.closedBeforeAnswer && !input.signal.aborted) return exchangeOnce(input);
  return outcome;
}

async function exchangeOnce(input: ExchangeInput): Promise<Outcome & { closedBeforeAnswer?: boolean }> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) {
    if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  // The URL's host (with its port when not the default): the connection itself goes to the vetted address.
  headers.host = input.url.host;
  const pool = poolFor({ https: input.url.protocol === 'https:', address: input.address, port: input.port, hostname: input.hostname });
  let response: Dispatcher.ResponseData;
  try {
    response = await pool.request({
      method: 'POST',
      path: `${input.url.pathname}${input.url.search}`,
      headers,
      body: input.body,
      signal: input.signal,
    });
  } catch (err) {
    const unanswered = { statusCode: null, excerpt: null, retryAfter: null, location: null };
    if (input.signal.aborted) return { ...unanswered, timedOut: true, connectionError: null };
    const code = (err as { code?: unknown }).code;
    const detail = typeof code === 'string' ? code : err instanceof Error ? err.message : 'unknown error';
    return { ...unanswered, timedOut: false, connectionError: detail, closedBeforeAnswer: CLOSED_BEFORE_ANSWER.has(detail) };
  }
  const { excerpt, cut } = await readCapped(response.body, input);
  return {
    statusCode: response.statusCode,
    excerpt,
    retryAfter: headerValue(response.headers['retry-after']),
    location: headerValue(response.headers.location),
    // Decision: a timeout while the body is still arriving is a failed attempt even if a 2xx status was already
    // received ("timeout = failure"; the exchange as a whole is bounded).
    timedOut: cut && input.signal.aborted,
    connectionError: null,
  };
}

/**
 * Reads an answer's body up to maxReadBytes, keeping its first maxExcerptBytes (utf8, an incomplete trailing
 * character dropped); at the cap the body is dropped with its connection. `cut`: it ended early (reset, or the
 * timeout). Listeners rather than an async iterator: this runs for every delivery.
 */
function readCapped(body: Readable, limits: { maxExcerptBytes: number; maxReadBytes: number }): Promise<{ excerpt: string; cut: boolean }> {
  return new Promise((resolve) => {
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let readBytes = 0;
    let settled = false;
    const settle = (cut: boolean): void => {
      if (settled) return;
      settled = true;
      resolve({ excerpt: new StringDecoder('utf8').write(Buffer.concat(kept)), cut });
    };
    body.on('data', (chunk: Buffer) => {
      readBytes += chunk.length;
      if (keptBytes < limits.maxExcerptBytes) {
        const slice = chunk.subarray(0, limits.maxExcerptBytes - keptBytes);
        kept.push(slice);
        keptBytes += slice.length;
      }
      // Cap reached: we have what we keep; stop reading and drop the connection.
      if (readBytes >= limits.maxReadBytes) {
        settle(false);
        body.destroy();
      }
    });
    body.once('end', () => settle(false));
    // The status was received, so a reset while reading the body does not change the outcome; a timeout does.
    body.once('error', () => settle(true));
    body.once('close', () => settle(!body.readableEnded));
  });
}

const headerValue = (value: string | string[] | undefined): string | null => (typeof value === 'string' ? value : (value?.[0] ?? null));
