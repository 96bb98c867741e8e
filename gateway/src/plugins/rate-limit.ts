import { AppError, withTimeout } from '@crm/shared/core';
import { LocalWindowCounter, type RateLimitCounter } from './rate-limit.store';

export interface RateLimitOptions {
  /** Per API key and per organization, requests per second; 0 turns that policy off. */
  keyPerSecond: number;
  orgPerSecond: number;
  windowSeconds: number;
  /** Longest wait for the shared counter; past it this request is counted by this process alone. */
  storeTimeoutMs: number;
  counter: RateLimitCounter;
  /**
   * While the shared counter fails, each replica admits the quota divided by this (the number of replicas), so
   * together they still admit about the quota.
   */
  fallbackReplicas: number;
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
  /** This replica's share while it counts alone. */
  localQuota: number;
}

/** After the counter fails (not merely slow) it is left alone this long, so an outage costs no wait per request. */
const STORE_BACKOFF_MS = 5_000;

/**
 * Fixed-window limits per API key and per organization, counted in a store every replica shares, so N replicas
 * admit the quota once, not N times. Each request is charged its route's cost (route-costs.ts). When the store
 * fails or answers too slowly, the request is counted in this process's memory against its share of the quota
 * (fallbackReplicas): the limits loosen to what one replica can see, they never switch off.
 */
export function createRateLimiter(options: RateLimitOptions) {
  const windowMs = options.windowSeconds * 1000;
  const replicas = Math.max(1, options.fallbackReplicas);
  const policies: Policy[] = [
    { name: 'key' as const, quota: quotaOf(options.keyPerSecond, options.windowSeconds) },
    { name: 'org' as const, quota: quotaOf(options.orgPerSecond, options.windowSeconds) },
  ]
    .filter((policy) => policy.quota > 0)
    .map((policy) => ({ ...policy, localQuota: Math.max(1, Math.floor(policy.quota / replicas)) }));
  const policyHeader = policies.map((policy) => `"${policy.name}";q=${policy.quota};w=${options.windowSeconds}`).join(', ');
  const local = new LocalWindowCounter();
  let failing = false;
  let skipUntil = 0;

  /** The shared count, or undefined when the store failed or was too slow (then left alone for a while if it failed). */
  async function sharedCount(principal: Principal, windowStart: number, cost: number, now: number) {
    if (now < skipUntil) return undefined;
    try {
      const counts = await withTimeout(
        options.counter.hit(principal.orgId, principal.keyId, windowStart, windowMs, cost),
        options.storeTimeoutMs,
        () => {
          throw new StoreTimeout(`no answer within ${options.storeTimeoutMs} ms`);
        },
      );
      if (failing) options.log('rate-limit store answers again: shared limits apply');
      failing = false;
      return counts;
    } catch (error) {
      // A slow answer sends only this request to the local count: a burst that slows the store must not make every
      // following request skip it.
      if (!(error instanceof StoreTimeout)) skipUntil = now + STORE_BACKOFF_MS;
      if (!failing) options.log('rate-limit store unavailable: counting in this replica alone', error);
      failing = true;
      return undefined;
    }
  }

  return async function check(principal: Principal, cost = 1, now = Date.now()): Promise<RateLimitOutcome> {
    if (policies.length === 0) return { headers: {} };
    const headers: Record<string, string> = { 'RateLimit-Policy': policyHeader };
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const shared = await sharedCount(principal, windowStart, cost, now);
    const counter = shared ? options.counter : local;
    const counts = shared ?? (await local.hit(principal.orgId, principal.keyId, windowStart, windowMs, cost));

    const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    // The most constraining policy is the one with the fewest units left; on a tie, the key's (listed first).
    const [tightest] = policies
      .map((policy) => ({ ...policy, remaining: (shared ? policy.quota : policy.localQuota) - counts[policy.name] }))
      .sort((a, b) => a.remaining - b.remaining);
    if (!tightest) return { headers };
    headers.RateLimit = `"${tightest.name}";r=${Math.max(0, tightest.remaining)};t=${resetSeconds}`;
    if (tightest.remaining >= 0) return { headers };

    // Waited for (within the store's budget): a client that reads this refusal and sends a cheaper request must
    // find the refund already made, not race it.
    const refund = counter.giveBack(principal.orgId, principal.keyId, windowStart, cost);
    await withTimeout(refund, options.storeTimeoutMs, () => undefined).catch(() => undefined);
    const who = tightest.name === 'key' ? 'this API key' : 'this organization';
    return {
      headers,
      refused: new AppError('RATE_LIMITED', `Too many requests for ${who}; retry in ${resetSeconds} s.`, {
        policy: tightest.name,
        limit: tightest.quota,
        window_seconds: options.windowSeconds,
        cost,
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

type Principal = { orgId: string; keyId: string };
