import type { IncomingHttpHeaders } from 'node:http';

/** When and how long the OpenAI-compatible adapter waits before trying again. */
export interface BackoffOptions {
  /** Wait after the first failed attempt, before jitter; doubles each attempt. */
  baseMs: number;
  /** Cap of the exponential part. */
  maxMs: number;
  /** Injectable randomness in [0, 1) for tests. */
  random: () => number;
}

/** Statuses worth another attempt: rate limits and server-side failures. Any other 4xx will fail the same way again. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * "Equal jitter": half the exponential wait is kept, the other half is random, so replicas that failed together
 * (a provider outage) spread their retries without ever retrying immediately.
 */
export function backoffDelay(failedAttempt: number, options: BackoffOptions): number {
  const exponential = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, failedAttempt - 1));
  return Math.round(exponential / 2 + options.random() * (exponential / 2));
}

/**
 * The provider's own wait, in ms: `retry-after-ms` (sent by OpenAI, finer than seconds) first, then `Retry-After`
 * as delay-seconds or an HTTP date (RFC 9110 §10.2.3). Null when absent or unreadable.
 */
export function retryAfterMs(headers: IncomingHttpHeaders, now: number = Date.now()): number | null {
  const ms = firstValue(headers['retry-after-ms'])?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = firstValue(headers['retry-after'])?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

const firstValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
