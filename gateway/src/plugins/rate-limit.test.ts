import { describe, expect, it } from 'vitest';
import { createRateLimiter, type RateLimitOptions } from './rate-limit';
import { LocalWindowCounter, type RateLimitCounter } from './rate-limit.store';

/** The in-memory counter (the store's semantics: count, then give back refused requests), counting its calls. */
function memoryCounter(): RateLimitCounter & { calls: number } {
  const local = new LocalWindowCounter();
  const counter = {
    calls: 0,
    hit: (...args: Parameters<RateLimitCounter['hit']>) => {
      counter.calls += 1;
      return local.hit(...args);
    },
    giveBack: (...args: Parameters<RateLimitCounter['giveBack']>) => local.giveBack(...args),
  };
  return counter;
}

const options = (overrides: Partial<RateLimitOptions>): RateLimitOptions => ({
  keyPerSecond: 3,
  orgPerSecond: 5,
  windowSeconds: 1,
  storeTimeoutMs: 50,
  counter: memoryCounter(),
  fallbackReplicas: 1,
  log: () => undefined,
  ...overrides,
});
const keyA = { orgId: 'org_1', keyId: 'key_a' };
const keyB = { orgId: 'org_1', keyId: 'key_b' };
const T0 = 1_700_000_000_000;

describe('rate limiter', () => {
  it('admits the key quota per window, then refuses naming the key policy, with the headers', async () => {
    const check = createRateLimiter(options({}));
    const first = await check(keyA, 1, T0 + 200);
    expect(first.refused).toBeUndefined();
    expect(first.headers).toEqual({ 'RateLimit-Policy': '"key";q=3;w=1, "org";q=5;w=1', RateLimit: '"key";r=2;t=1' });
    await check(keyA, 1, T0 + 300);
    await check(keyA, 1, T0 + 400);
    const fourth = await check(keyA, 1, T0 + 500);
    expect(fourth.refused?.code).toBe('RATE_LIMITED');
    expect(fourth.refused?.details).toMatchObject({ policy: 'key', limit: 3, retry_after_seconds: 1 });
    expect(fourth.headers.RateLimit).toBe('"key";r=0;t=1');
    // The next window starts afresh.
    expect((await check(keyA, 1, T0 + 1_000)).refused).toBeUndefined();
  });

  it('refuses on the organization policy when its keys together pass it; refused requests are not charged', async () => {
    const check = createRateLimiter(options({}));
    for (let i = 0; i < 5; i++) await check(keyA, 1, T0 + 10); // 3 admitted, 2 refused and given back
    for (let i = 0; i < 2; i++) expect((await check(keyB, 1, T0 + 20)).refused).toBeUndefined();
    const refused = await check(keyB, 1, T0 + 30);
    expect(refused.refused?.details).toMatchObject({ policy: 'org', limit: 5 });
    expect(refused.headers.RateLimit).toBe('"org";r=0;t=1');
    expect((await check({ orgId: 'org_2', keyId: 'key_c' }, 1, T0 + 40)).refused).toBeUndefined();
  });

  it('uses the window: quota = rate × window, reset in seconds to its end', async () => {
    const check = createRateLimiter(options({ keyPerSecond: 2, orgPerSecond: 0, windowSeconds: 5 }));
    const outcome = await check(keyA, 1, T0 - (T0 % 5_000) + 1_500);
    expect(outcome.headers).toEqual({ 'RateLimit-Policy': '"key";q=10;w=5', RateLimit: '"key";r=9;t=4' });
  });

  it('is off with both rates 0: no headers, no store call', async () => {
    const counter = memoryCounter();
    const outcome = await createRateLimiter(options({ keyPerSecond: 0, orgPerSecond: 0, counter }))(keyA);
    expect(outcome).toEqual({ headers: {} });
    expect(counter.calls).toBe(0);
  });

  it('charges each request its cost: a request of cost 2 uses two of the quota', async () => {
    const check = createRateLimiter(options({}));
    expect((await check(keyA, 2, T0 + 10)).headers.RateLimit).toBe('"key";r=1;t=1');
    const refused = await check(keyA, 2, T0 + 20);
    expect(refused.refused?.details).toMatchObject({ policy: 'key', limit: 3, cost: 2 });
    // The refused request was given back: one unit is still there for a cheap request.
    expect((await check(keyA, 1, T0 + 30)).refused).toBeUndefined();
  });

  it('answers a refusal once its give-back is made, so the next cheap request finds the refund', async () => {
    const local = memoryCounter();
    // A store whose writes take a while: the give-back lands 20 ms after it is sent.
    const slowGiveBack: RateLimitCounter = {
      hit: (...args) => local.hit(...args),
      giveBack: (...args) => new Promise((resolve) => setTimeout(() => resolve(local.giveBack(...args)), 20)),
    };
    const check = createRateLimiter(options({ counter: slowGiveBack }));
    await check(keyA, 2, T0 + 10);
    expect((await check(keyA, 2, T0 + 20)).refused?.code).toBe('RATE_LIMITED');
    expect((await check(keyA, 1, T0 + 30)).refused).toBeUndefined();
  });

  it('counts in this replica alone while the store hangs or throws, against its share, and logs once', async () => {
    const logged: string[] = [];
    let calls = 0;
    const hanging: RateLimitCounter = {
      hit: () => {
        calls += 1;
        return new Promise(() => undefined);
      },
      giveBack: async () => undefined,
    };
    const check = createRateLimiter(options({ counter: hanging, log: (message) => logged.push(message) }));
    const started = Date.now();
    const outcome = await check(keyA, 1, T0);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(outcome.refused).toBeUndefined();
    expect(outcome.headers).toEqual({ 'RateLimit-Policy': '"key";q=3;w=1, "org";q=5;w=1', RateLimit: '"key";r=2;t=1' });
    // A slow store is asked again (a burst must not leave it for good); the log says it once.
    await check(keyA, 1, T0 + 100);
    expect(calls).toBe(2);
    expect(logged).toHaveLength(1);
    // The local count still limits: the key's third request is the last.
    expect((await check(keyA, 1, T0 + 200)).refused).toBeUndefined();
    expect((await check(keyA, 1, T0 + 300)).refused?.details).toMatchObject({ policy: 'key' });

    // A failing one is left alone for a while, and each of two replicas admits half the quota.
    let failures = 0;
    const down: RateLimitCounter = {
      hit: () => {
        failures += 1;
        return Promise.reject(new Error('down'));
      },
      giveBack: async () => undefined,
    };
    const failing = createRateLimiter(options({ counter: down, keyPerSecond: 4, orgPerSecond: 0, fallbackReplicas: 2 }));
    expect((await failing(keyA, 1, T0)).refused).toBeUndefined();
    expect((await failing(keyA, 1, T0 + 100)).refused).toBeUndefined();
    expect((await failing(keyA, 1, T0 + 200)).refused?.code).toBe('RATE_LIMITED');
    expect(failures).toBe(1);
  });
});
