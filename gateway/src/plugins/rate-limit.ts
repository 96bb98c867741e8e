import { AppError } from '@crm/shared';

type Bucket = { tokens: number; updatedAt: number };

/**
 * A token bucket per API key, in memory: each replica limits its own share. Rate 0 turns it off.
 * Answers RATE_LIMITED with the seconds to wait.
 */
export function createRateLimiter(ratePerSecond: number) {
  const buckets = new Map<string, Bucket>();
  const capacity = ratePerSecond * 2;
  return function take(keyId: string, now = Date.now()): void {
    if (ratePerSecond <= 0) return;
    const bucket = buckets.get(keyId) ?? { tokens: capacity, updatedAt: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.updatedAt) / 1000) * ratePerSecond);
    bucket.updatedAt = now;
    if (bucket.tokens < 1) {
      const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond));
      buckets.set(keyId, bucket);
      throw new AppError('RATE_LIMITED', `Too many requests for this API key; retry in ${retryAfterSeconds} s.`, {
        retry_after_seconds: retryAfterSeconds,
      });
    }
    bucket.tokens -= 1;
    buckets.set(keyId, bucket);
  };
}
