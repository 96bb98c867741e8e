import { AppError, withTimeout } from '@crm/shared';
import type { RateLimitCounter } from './rate-limit.store';

export interface RateLimitOptions {
  /** Per API key and per organization, requests per second; 0 turns that policy off. */
  keyPerSecond: number;
  orgPerSecond: number;
  windowSeconds: number;
  /** Longest wait for the counter; past it this request is served unlimited (fail open). */
  storeTimeoutMs: number;
  counter: RateLimitCounter;
  /** Called once when the counter starts failing and once when it answers again. */
  log: (message: string, error?: unknown) => void;
}

export interface RateLimitOutcome {
  /** RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers), for every authenticated answer. */
  headers: Record<string, string>;
  /** Set when a policy's quota is used up: RATE_LIMITED, naming the policy. */
  refused?: AppError;
}

type PolicyName = 'key' | 'org';
interface Policy {
  name: PolicyName;
  quota: number;
}

/** After the counter fails (not merely slow) it is left alone this long, so an outage costs no wait per request. */
const STORE_BACKOFF_MS = 5_000;

/**
 * Fixed-window limits per API key and per organization, counted in a store every replica shares, so N replicas
 * admit the quota once, not N times. The counter may fail or hang: the API is then served without limits (and
 * logged), never refused because of the limiter.
 */
export function createRateLimiter(options: RateLimitOptions) {
  const windowMs = options.windowSeconds * 1000;
  const policies: Policy[] = [
    { name: 'key' as const, quota: quotaOf(options.keyPerSecond, options.windowSeconds) },
    { name: 'org' as const, quota: quotaOf(options.orgPerSecond, options.windowSeconds) },
  ].filter((policy) => policy.quota > 0);
  const policyHeader = policies.map((policy) => `"${policy.name}";q=${policy.quota};w=${options.windowSeconds}`).join(', ');
  let failing = false;
  let skipUntil = 0;

  /** Counts one request, or `weight` of them (a batch upsert counts one per item). */
  return async function check(principal: { orgId: string; keyId: string }, now = Date.now(), weight = 1): Promise<RateLimitOutcome> {
    if (policies.length === 0) return { headers: {} };
    const headers: Record<string, string> = { 'RateLimit-Policy': policyHeader };
    if (now < skipUntil) return { headers };
    const windowStart = Math.floor(now / windowMs) * windowMs;
    let counts: Record<PolicyName, number>;
    try {
      counts = await withTimeout(
        options.counter.hit(principal.orgId, principal.keyId, windowStart, windowMs, weight),
        options.storeTimeoutMs,
        () => {
          throw new StoreTimeout(`no answer within ${options.storeTimeoutMs} ms`);
        },
      );
    } catch (error) {
      // A slow answer serves only this request unlimited: a burst that slows the store must not switch limits off.
      if (!(error instanceof StoreTimeout)) skipUntil = now + STORE_BACKOFF_MS;
      if (!failing) options.log('rate-limit store unavailable: serving without limits', error);
      failing = true;
      return { headers };
    }
    if (failing) options.log('rate-limit store answers again: limits apply');
    failing = false;

    const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    // The most constraining policy is the one with the fewest requests left; on a tie, the key's (listed first).
    const [tightest] = policies
      .map((policy) => ({ ...policy, remaining: policy.quota - counts[policy.name] }))
      .sort((a, b) => a.remaining - b.remaining);
    if (!tightest) return { headers };
    headers.RateLimit = `"${tightest.name}";r=${Math.max(0, tightest.remaining)};t=${resetSeconds}`;
    if (tightest.remaining >= 0) return { headers };

    options.counter.giveBack(principal.orgId, principal.keyId, windowStart, weight).catch(() => undefined);
    const who = tightest.name === 'key' ? 'this API key' : 'this organization';
    return {
      headers,
      refused: new AppError('RATE_LIMITED', `Too many requests for ${who}; retry in ${resetSeconds} s.`, {
        policy: tightest.name,
        limit: tightest.quota,
        window_seconds: options.windowSeconds,
        retry_after_seconds: resetSeconds,
      }),
    };
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** Requests per window; a rate below one per window still admits one. */
const quotaOf = (perSecond: number, windowSeconds: number): number =>
  perSecond <= 0 ? 0 : Math.max(1, Math.floor(perSecond * windowSeconds));

class StoreTimeout extends Error {}
