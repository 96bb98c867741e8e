import { AppError } from '@crm/shared/core';
import { createHash } from 'node:crypto';

export interface FailedAuthOptions {
  /** Refused keys an address may send per window; the next request from it is refused before the key is looked up. */
  limit: number;
  windowSeconds: number;
}

const MAX_ADDRESSES = 100_000;

const MAX_KNOWN_KEYS = 10_000;

/**
 * Throttles failed authentication per client address, in this process: each unknown key costs a CRM lookup, so
 * an address that keeps sending them is refused 429 RATE_LIMITED (policy `auth_failures`) with Retry-After until
 * its window ends, before any lookup. A key this process has seen succeed still passes from a blocked address, so
 * clients behind one proxy or NAT as a guesser keep working. Fixed windows; 0 turns it off.
 */
export function createFailedAuthThrottle(options: FailedAuthOptions) {
  const windowMs = options.windowSeconds * 1000;
  let windowStart = 0;
  const failures = new Map<string, number>();
  /** SHA-256 of the Authorization headers that authenticated (never the keys themselves). */
  const knownGood = new Set<string>();
  const digest = (header: string) => createHash('sha256').update(header).digest('base64');

  const roll = (now: number) => {
    const start = Math.floor(now / windowMs) * windowMs;
    if (start === windowStart) return;
    windowStart = start;
    failures.clear();
  };

  return {
    /** Throws RATE_LIMITED when `address` has used up its failures in this window and `header` is not a known key. */
    check(address: string, header: string | undefined, now = Date.now()): void {
      if (options.limit <= 0) return;
      roll(now);
      if ((failures.get(address) ?? 0) < options.limit) return;
      if (header !== undefined && knownGood.has(digest(header))) return;
      const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      throw new AppError('RATE_LIMITED', `Too many requests with an invalid API key from this address; retry in ${retryAfter} s.`, {
        policy: 'auth_failures',
        limit: options.limit,
        window_seconds: options.windowSeconds,
        retry_after_seconds: retryAfter,
      });
    },
    /** Remembers a header that authenticated. */
    succeeded(header: string | undefined): void {
      if (options.limit <= 0 || header === undefined) return;
      if (knownGood.size >= MAX_KNOWN_KEYS) knownGood.clear();
      knownGood.add(digest(header));
    },
    /** Counts a refused key from `address`. */
    failed(address: string, now = Date.now()): void {
      if (options.limit <= 0) return;
      roll(now);
      if (failures.size >= MAX_ADDRESSES) failures.clear();
      failures.set(address, (failures.get(address) ?? 0) + 1);
    },
  };
}

export type FailedAuthThrottle = ReturnType<typeof createFailedAuthThrottle>;
