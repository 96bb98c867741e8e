import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  it('computes once per key within the time to live, again after it or after invalidate', async () => {
    const cache = new TtlCache<number>(1_000);
    let calls = 0;
    const compute = async () => ++calls;
    expect(await cache.get('a', compute, 0)).toBe(1);
    expect(await cache.get('a', compute, 500)).toBe(1);
    expect(await cache.get('a', compute, 1_500)).toBe(2);
    cache.invalidate('a');
    expect(await cache.get('a', compute, 1_600)).toBe(3);
  });

  it('subscribes to a thenable exactly once and does not keep failures', async () => {
    const cache = new TtlCache<number>(1_000);
    let runs = 0;
    const thenable: PromiseLike<number> = { then: (resolve) => Promise.resolve(resolve?.(++runs)) as never };
    expect(await cache.get('k', () => thenable)).toBe(1);
    expect(runs).toBe(1);
    await expect(cache.get('bad', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('bad', async () => 7)).toBe(7);
  });
});
