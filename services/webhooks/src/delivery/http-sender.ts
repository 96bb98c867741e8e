import { performance } from 'node:perf_hooks';
import { EMPTY_ALLOW_LIST, resolveVettedAddress, type AllowList, type Resolver } from './address-guard';
import { Deadline, exchange, type Outcome } from './http-exchange';
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

const TIMED_OUT = Symbol('timed-out');

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

  const deadline = new Deadline(timeoutMs);
  try {
    // Re-checked at delivery time: the allow-list or the rules may have changed since the
    // subscription was created.
    const target = checkTargetUrlCached(input.url, allowList);
    if (!target.ok) return blocked(target.reason);

    const verdict = input.resolver
      ? resolveVettedAddress(target.hostname, allowList, input.resolver)
      : vettedAddressCached(target.hostname, allowList);
    const vetted =
      verdict instanceof Promise
        ? await Promise.race([verdict, new Promise<typeof TIMED_OUT>((expired) => deadline.whenExpired(() => expired(TIMED_OUT)))])
        : verdict;
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
      deadline,
      maxExcerptBytes,
      maxReadBytes,
    });
    return finish(outcome);
  } catch (err) {
    // Defensive: nothing above should throw, but a delivery worker must never crash on one send.
    return finish({ ...noResponse, timedOut: false, connectionError: err instanceof Error ? err.message : 'unknown error' });
  } finally {
    deadline.clear();
  }
}
