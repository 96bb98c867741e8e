import { AppError } from '@crm/shared/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_TENANT_CONCURRENCY } from '../config';
import { limitsByPlan, TenantBulkheads } from './tenant-bulkhead';

/** Work that ends when the test says. */
function held() {
  const releases: Array<() => void> = [];
  let started = 0;
  const work = () =>
    new Promise<string>((resolve) => {
      started += 1;
      releases.push(() => resolve('done'));
    });
  return { work, started: () => started, releaseOne: () => releases.shift()?.() };
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as AppError,
  );
const tick = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * For the tests of adapted places: a clock the test moves, so that a request that sleeps `ms` takes exactly `ms` in
 * service whatever else the machine runs (on a loaded machine a 1 ms answer took long enough to read as queueing).
 * `served` moves the clock until every timer has run, requests that queued behind the first ones included.
 */
function exactClock() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  return async <T>(requests: Array<Promise<T>>): Promise<T[]> => {
    const all = Promise.all(requests);
    await vi.runAllTimersAsync();
    return all;
  };
}
afterEach(() => void vi.useRealTimers());

describe('tenant bulkheads', () => {
  it('serves an organization up to its concurrency, queues up to its queue, refuses the rest at once with 429', async () => {
    const bulkheads = new TenantBulkheads(() => ({ concurrency: 2, queue: 1, queueWaitMs: 10_000 }));
    const busy = held();
    const running = [bulkheads.run('org_a', 'pro', busy.work), bulkheads.run('org_a', 'pro', busy.work)];
    const queued = bulkheads.run('org_a', 'pro', busy.work);
    const refused = await refusalOf(bulkheads.run('org_a', 'pro', busy.work));
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'concurrency', limit: 2, retry_after_seconds: 1 } });
    expect(busy.started()).toBe(2);

    // Another organization has its own compartment.
    const other = held();
    const otherRun = bulkheads.run('org_b', 'pro', other.work);
    await tick();
    expect(other.started()).toBe(1);
    other.releaseOne();
    expect(await otherRun).toBe('done');

    // A freed place goes to the waiter.
    busy.releaseOne();
    await tick();
    expect(busy.started()).toBe(3);
    busy.releaseOne();
    busy.releaseOne();
    expect(await Promise.all([...running, queued])).toEqual(['done', 'done', 'done']);
    expect(bulkheads.activeOf('org_a')).toBe(0);
  });

  it('never starts a request that waited past its queue wait or its deadline, and frees its place', async () => {
    const bulkheads = new TenantBulkheads(() => ({ concurrency: 1, queue: 5, queueWaitMs: 30 }));
    const busy = held();
    const running = bulkheads.run('org_a', 'pro', busy.work);
    const waited = await refusalOf(bulkheads.run('org_a', 'pro', busy.work));
    expect(waited).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'concurrency' } });
    const expired = await refusalOf(bulkheads.run('org_a', 'pro', busy.work, { deadline: Date.now() - 1 }));
    expect(expired).toMatchObject({ code: 'RATE_LIMITED' });
    const gone = new AbortController();
    const abandoned = refusalOf(bulkheads.run('org_a', 'pro', busy.work, { abandoned: gone.signal }));
    gone.abort();
    expect(await abandoned).toBeInstanceOf(AppError);
    expect(busy.started()).toBe(1);
    busy.releaseOne();
    await running;
    // Nothing left waiting: the next request starts at once.
    const next = bulkheads.run('org_a', 'pro', busy.work);
    await tick();
    expect(busy.started()).toBe(2);
    busy.releaseOne();
    await next;
  });

  it('serves a burst that fits the queue in full when the organization is otherwise idle', async () => {
    const bulkheads = new TenantBulkheads(limitsByPlan(DEFAULT_TENANT_CONCURRENCY, 300, 0));
    const quick = () => new Promise<number>((resolve) => setTimeout(() => resolve(200), 5));
    const deadline = Date.now() + 12_000;
    const answers = await Promise.all(Array.from({ length: 50 }, () => bulkheads.run('org_a', 'free', quick, { deadline })));
    expect(answers).toEqual(Array.from({ length: 50 }, () => 200));
  });

  it('refuses at once a request whose expected wait passes its deadline, from the organization’s recent service time', async () => {
    const bulkheads = new TenantBulkheads(() => ({ concurrency: 1, queue: 10, queueWaitMs: 0 }));
    // One request of 60 ms teaches the compartment its service time (kept while a request is in service).
    const slow = held();
    const first = bulkheads.run('org_a', 'pro', () => sleep(60));
    const holding = bulkheads.run('org_a', 'pro', slow.work);
    await first;
    // One in service, two waiting: the third waiter expects about 3 × 12 ms (a fifth of 60 ms averaged in).
    const waiting = [
      bulkheads.run('org_a', 'pro', slow.work, { deadline: Date.now() + 60_000 }),
      bulkheads.run('org_a', 'pro', slow.work, { deadline: Date.now() + 60_000 }),
    ];
    let settled = false;
    const refusal = refusalOf(bulkheads.run('org_a', 'pro', slow.work, { deadline: Date.now() + 30 })).finally(() => (settled = true));
    // Refused without waiting for its deadline.
    await tick();
    expect(settled).toBe(true);
    expect(await refusal).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'concurrency' } });
    // With time enough, the same place is granted.
    const granted = bulkheads.run('org_a', 'pro', slow.work, { deadline: Date.now() + 60_000 });
    for (let i = 0; i < 4; i += 1) {
      slow.releaseOne();
      await tick();
    }
    expect(await Promise.all([holding, ...waiting, granted])).toEqual(['done', 'done', 'done', 'done']);
    expect(slow.started()).toBe(4);
  });

  it('tells before any work whether the next request would be refused, with the same error object each time', async () => {
    const bulkheads = new TenantBulkheads(limitsByPlan('pro:1', 1, 0));
    const deadline = Date.now() + 10_000;
    expect(bulkheads.refusal('org_a', 'pro', deadline)).toBeUndefined();
    const busy = held();
    const running = bulkheads.run('org_a', 'pro', busy.work);
    // Its place is taken, its queue is not: it may wait.
    expect(bulkheads.refusal('org_a', 'pro', deadline)).toBeUndefined();
    const queued = bulkheads.run('org_a', 'pro', busy.work);
    const refusal = bulkheads.refusal('org_a', 'pro', deadline);
    expect(refusal).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'concurrency', limit: 1, queue: 1, retry_after_seconds: 1 } });
    expect(bulkheads.refusal('org_a', 'pro', deadline)).toBe(refusal);
    expect(await refusalOf(bulkheads.run('org_a', 'pro', busy.work))).toBe(refusal);
    // Another organization is not affected; nothing was started for the refused ones.
    expect(bulkheads.refusal('org_b', 'pro', deadline)).toBeUndefined();
    expect(busy.started()).toBe(1);
    busy.releaseOne();
    await tick();
    busy.releaseOne();
    await Promise.all([running, queued]);
  });

  it('gives an organization whose answers slow down fewer places, keeps them while it is idle, and gives them back', async () => {
    const served = exactClock();
    const bulkheads = new TenantBulkheads(() => ({ concurrency: 8, queue: 100, queueWaitMs: 0 }), 2);
    const serve = (ms: number) => bulkheads.run('org_a', 'pro', () => sleep(ms), { operation: 'listContacts' });
    // Its norm: 8 at once, 5 ms each.
    await served(Array.from({ length: 8 }, () => serve(5)));
    expect(bulkheads.placesOf('org_a', 'pro')).toBe(8);
    // Then each answer takes twenty times as long: it keeps fewer in service and the rest wait in its queue.
    await served(Array.from({ length: 24 }, () => serve(100)));
    const shrunk = bulkheads.placesOf('org_a', 'pro');
    expect(shrunk).toBeLessThan(8);
    const busy = held();
    const burst = Array.from({ length: 8 }, () => bulkheads.run('org_a', 'pro', busy.work, { operation: 'listContacts' }));
    await tick();
    expect(busy.started()).toBe(shrunk);
    expect(bulkheads.activeOf('org_a')).toBe(shrunk);
    // Another organization keeps its plan's places.
    expect(bulkheads.placesOf('org_b', 'pro')).toBe(8);
    for (let i = 0; i < 8; i += 1) {
      busy.releaseOne();
      await tick();
    }
    await Promise.all(burst);
    // Back at its norm: its places grow again, and a burst has them all.
    for (let round = 0; round < 20; round += 1) await served(Array.from({ length: 8 }, () => serve(1)));
    expect(bulkheads.placesOf('org_a', 'pro')).toBe(8);
  });

  it('forgets the adapted places of the longest idle organization beyond the 1,000 it remembers', async () => {
    const served = exactClock();
    const bulkheads = new TenantBulkheads(() => ({ concurrency: 8, queue: 100, queueWaitMs: 0 }), 2);
    const serve = (tenant: string, ms: number) => bulkheads.run(tenant, 'pro', () => sleep(ms), { operation: 'listContacts' });
    await served(Array.from({ length: 8 }, () => serve('org_a', 2)));
    await served(Array.from({ length: 24 }, () => serve('org_a', 100)));
    expect(bulkheads.placesOf('org_a', 'pro')).toBeLessThan(8);
    // 999 other organizations idle after it: it is still remembered. One more, and it is the one forgotten.
    for (let i = 0; i < 999; i += 1) await bulkheads.run(`org_${i}`, 'pro', async () => undefined);
    expect(bulkheads.placesOf('org_a', 'pro')).toBeLessThan(8);
    await bulkheads.run('org_1000', 'pro', async () => undefined);
    expect(bulkheads.placesOf('org_a', 'pro')).toBe(8);
  });

  it('counts an organization’s requests still on their way to their place as ahead of its next one', async () => {
    const bulkheads = new TenantBulkheads(limitsByPlan('pro:2', 3, 0));
    const deadline = Date.now() + 10_000;
    const busy = held();
    const running = bulkheads.run('org_a', 'pro', busy.work);
    // One in service, so its compartment exists; 5 more open (their keys being checked) fill its 2 places and 3
    // waiting places: the 6th open one is refused before it reaches the queue.
    expect(bulkheads.refusal('org_a', 'pro', deadline, 5)).toBeUndefined();
    expect(bulkheads.refusal('org_a', 'pro', deadline, 6)).toMatchObject({ code: 'RATE_LIMITED', details: { policy: 'concurrency' } });
    busy.releaseOne();
    await running;
  });

  it('sizes the compartments from the plan; an unknown plan gets the smallest', () => {
    const limits = limitsByPlan('free:2, pro:8', 12, 250);
    expect(limits('pro')).toEqual({ concurrency: 8, queue: 12, queueWaitMs: 250 });
    expect(limits('mystery')).toEqual({ concurrency: 2, queue: 12, queueWaitMs: 250 });
    expect(limitsByPlan('0', 2, 250)('pro').concurrency).toBe(0);
    expect(() => limitsByPlan('pro=8', 1, 1)).toThrow(/plan:number/);
  });
});
