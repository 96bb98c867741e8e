import { describe, expect, it } from 'vitest';
import { AdaptiveConcurrency } from './adaptive-concurrency';

/** Records `count` answers of `operation` taking `ms` each, one per 10 ms from `from`, all places in use. */
function answer(limit: AdaptiveConcurrency, operation: string, ms: number, count: number, from = 0): number {
  for (let i = 0; i < count; i += 1) limit.record(operation, ms, limit.places, from + i * 10);
  return from + count * 10;
}

describe('adaptive concurrency', () => {
  it('keeps the plan’s places while answers stay at their norm, and shrinks them as the answers slow down', () => {
    const limit = new AdaptiveConcurrency(32, 2);
    let now = answer(limit, 'listContacts', 20, 50);
    expect(limit.places).toBe(32);
    // Three times slower than its best (beyond twice + the slack): the backends queue its work.
    now = answer(limit, 'listContacts', 60, 10, now);
    const shrunk = limit.places;
    expect(shrunk).toBeLessThan(32);
    expect(shrunk).toBeGreaterThan(2);
    // Still slow: down to the floor of two, never below.
    answer(limit, 'listContacts', 200, 200, now);
    expect(limit.places).toBe(2);
  });

  it('grows back to the plan’s places once answers are at their norm again', () => {
    const limit = new AdaptiveConcurrency(16, 2);
    let now = answer(limit, 'listContacts', 20, 1);
    now = answer(limit, 'listContacts', 400, 100, now);
    expect(limit.places).toBe(2);
    answer(limit, 'listContacts', 20, 200, now);
    expect(limit.places).toBe(16);
  });

  it('leaves an organization using under half its places as it is: its slow answers are not its queueing', () => {
    const limit = new AdaptiveConcurrency(16, 2);
    let now = answer(limit, 'listContacts', 20, 1);
    // One request at a time, each ten times its norm (the backends busy with others): its places stay.
    for (let i = 0; i < 100; i += 1) limit.record('listContacts', 200, 1, (now += 10));
    expect(limit.places).toBe(16);
    // Seven of sixteen: still under half. Eight: its answers count.
    for (let i = 0; i < 20; i += 1) limit.record('listContacts', 200, 7, (now += 10));
    expect(limit.places).toBe(16);
    for (let i = 0; i < 20; i += 1) limit.record('listContacts', 200, 8, (now += 10));
    expect(limit.places).toBeLessThan(16);
  });

  it('compares each operation with its own norm: a search slower than a read by id is not queueing', () => {
    const limit = new AdaptiveConcurrency(24, 2);
    let now = 0;
    for (let i = 0; i < 100; i += 1) {
      limit.record('getContact', 3, limit.places, (now += 10));
      limit.record('searchContacts', 800, limit.places, (now += 10));
    }
    expect(limit.places).toBe(24);
  });

  it('forgets a norm not seen again: a table that grew makes its reads slower for good, not queued', () => {
    const limit = new AdaptiveConcurrency(24, 2);
    let now = answer(limit, 'listContacts', 10, 1);
    now = answer(limit, 'listContacts', 30, 30, now);
    const afterTheChange = limit.places;
    expect(afterTheChange).toBeLessThan(24);
    // Two minutes later the norm has drifted up past 30 ms: the same answers now read as the norm, and it grows back.
    answer(limit, 'listContacts', 30, 300, now + 120_000);
    expect(limit.places).toBe(24);
  });

  it('lets a few milliseconds of jitter on a fast operation pass', () => {
    const limit = new AdaptiveConcurrency(16, 2);
    const now = answer(limit, 'getContact', 1, 1);
    answer(limit, 'getContact', 6, 100, now);
    expect(limit.places).toBe(16);
  });

  it('follows a change of plan, and stays fixed with a tolerance of 0', () => {
    const limit = new AdaptiveConcurrency(16, 2);
    limit.setCeiling(8);
    expect(limit.places).toBe(8);
    const fixed = new AdaptiveConcurrency(16, 0);
    answer(fixed, 'listContacts', 10, 1);
    answer(fixed, 'listContacts', 1_000, 100, 10);
    expect(fixed.places).toBe(16);
    expect(new AdaptiveConcurrency(1, 2).places).toBe(1);
  });
});
