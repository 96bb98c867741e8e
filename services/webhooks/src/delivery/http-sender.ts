import { UNTRACED_REQUEST } from '@crm/shared';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import { EMPTY_ALLOW_LIST, resolveVettedAddress, type AllowList, type Resolver } from './address-guard';
import { agentFor } from './connection-pool';
import { cachedResolver, checkTargetUrlCached } from './target-cache';
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

/** Headers Node must compute itself; a caller-supplied value could desynchronise the framing or target. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/**
 * A lookup that always answers with the address we already vetted. Passing it to http.request
 * keeps the original hostname for the Host header, TLS SNI and certificate validation, while the
 * TCP connection goes to the address that passed the SSRF checks (no second DNS query that a
 * rebinding server could answer differently).
 */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    // Node >= 20 asks for `all: true` when autoSelectFamily (happy eyeballs) is on.
    if (options.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

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

    const vetted = await Promise.race([
      resolveVettedAddress(target.hostname, allowList, input.resolver ?? cachedResolver),
      untilAbort(controller.signal),
    ]);
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
      family: vetted.family,
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
  /** A fresh connection instead of a pooled one (the retry of a request a reused connection lost). */
  fresh?: boolean;
  url: URL;
  hostname: string;
  port: number;
  address: string;
  family: 4 | 6;
  body: string;
  headers: Readonly<Record<string, string>>;
  signal: AbortSignal;
  maxExcerptBytes: number;
  maxReadBytes: number;
}

/**
 * A kept-alive connection the receiver closed while idle fails the request that reused it, before anything was
 * answered; such a request is sent once more on a new connection (the receiver saw nothing of it, or, rarely, a
 * duplicate: at least once).
 */
async function exchange(input: ExchangeInput): Promise<Outcome> {
  const outcome = await exchangeOnce(input);
  if (outcome.staleSocket && !input.signal.aborted) return exchangeOnce({ ...input, fresh: true });
  return outcome;
}

function exchangeOnce(input: ExchangeInput): Promise<Outcome & { staleSocket?: boolean }> {
  return new Promise((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    let retryAfter: string | null = null;
    let location: string | null = null;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let readBytes = 0;

    const excerpt = (): string | null => (statusCode === null ? null : new StringDecoder('utf8').write(Buffer.concat(kept)));
    /** `complete`: the answer was read to its end, so the connection can serve the next delivery. */
    const settle = (timedOut: boolean, connectionError: string | null, complete = false, staleSocket = false): void => {
      if (settled) return;
      settled = true;
      input.signal.removeEventListener('abort', onAbort);
      resolve({ statusCode, timedOut, connectionError, excerpt: excerpt(), retryAfter, location, staleSocket });
      if (!complete) req.destroy();
    };
    // Decision: a timeout while the body is still arriving is a failed attempt even if a 2xx
    // status was already received ("timeout = failure"; the exchange as a whole is bounded).
    const onAbort = (): void => {
      settle(true, null);
    };

    const headers: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(input.headers)) {
      if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name] = value;
    }
    headers['Content-Length'] = Buffer.byteLength(input.body, 'utf8');

    const isHttps = input.url.protocol === 'https:';
    const options: https.RequestOptions & { [UNTRACED_REQUEST]: true } = {
      method: 'POST',
      protocol: input.url.protocol,
      hostname: input.hostname,
      port: input.port,
      path: `${input.url.pathname}${input.url.search}`,
      headers,
      // Pooled per vetted address (connection-pool.ts): a connection never outlives the check of its address.
      agent: input.fresh ? false : agentFor({ https: isHttps, address: input.address, port: input.port, hostname: input.hostname }),
      // No client span and no trace headers to the customer's endpoint (the worker's webhook.deliver span covers it).
      [UNTRACED_REQUEST]: true,
      lookup: pinnedLookup(input.address, input.family),
    };
    // SNI must carry the name, never an IP (Node warns and servers reject IP SNI).
    if (isHttps && isIP(input.hostname) === 0) options.servername = input.hostname;

    const req = (isHttps ? https : http).request(options, (res) => {
      statusCode = res.statusCode ?? null;
      const header = res.headers['retry-after'];
      retryAfter = typeof header === 'string' ? header : null;
      location = res.headers.location ?? null;
      res.on('data', (chunk: Buffer) => {
        readBytes += chunk.length;
        if (keptBytes < input.maxExcerptBytes) {
          const slice = chunk.subarray(0, input.maxExcerptBytes - keptBytes);
          kept.push(slice);
          keptBytes += slice.length;
        }
        // Cap reached: we have what we keep; stop reading and drop the connection.
        if (readBytes >= input.maxReadBytes) settle(false, null);
      });
      const done = (): void => {
        settle(false, null);
      };
      res.on('end', () => settle(false, null, true));
      // The status was received, so a reset while reading the body does not change the outcome.
      res.on('error', done);
      res.on('close', done);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && statusCode === null && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      settle(false, err.code ?? err.message, false, stale);
    });

    if (input.signal.aborted) {
      onAbort();
      return;
    }
    input.signal.addEventListener('abort', onAbort, { once: true });
    req.end(input.body, 'utf8');
  });
}
