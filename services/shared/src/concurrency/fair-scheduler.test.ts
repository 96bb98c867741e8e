import { describe, expect, it } from 'vitest';
import { FairScheduler, NotStarted } from './fair-scheduler';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Acquires in `lane` and records the order in which places were granted. */
function recorder(scheduler: FairScheduler) {
  const granted: string[] = [];
  const releases: Array<() => void> = [];
  const take = (lane: string, label = lane, deadline?: number, cancelled?: AbortSignal) =>
    scheduler.acquire(lane, deadline, cancelled).then((release) => {
      granted.push(label);
      releases.push(release);
    });
  return { granted, take, releaseOldest: () => releases.shift()?.() };
}

describe('fair scheduler', () => {
  it('lets one organization use every place, then gives freed places to the organizations in turn', async () => {
    const scheduler = new FairScheduler(2);
    const calls = recorder(scheduler);
    void calls.take('heavy', 'h1');
    void calls.take('heavy', 'h2');
    for (const label of ['h3', 'h4', 'h5']) void calls.take('heavy', label);
    // The light organization arrives behind three queued heavy calls.
    void calls.take('light', 'l1');
    void calls.take('light', 'l2');
    await tick();
    expect(calls.granted).toEqual(['h1', 'h2']);
    expect(scheduler.inService).toBe(2);

    for (let i = 0; i < 5; i++) {
      calls.releaseOldest();
      await tick();
    }
    // Turns: heavy (queued first), light, heavy, light, heavy — not every heavy call before the light ones.
    expect(calls.granted).toEqual(['h1', 'h2', 'h3', 'l1', 'h4', 'l2', 'h5']);
    while (scheduler.inService > 0) calls.releaseOldest();
    expect(scheduler.inService).toBe(0);
  });

  it('lets one organization hold at most its share of the places, so another organization’s call starts at once', async () => {
    const scheduler = new FairScheduler(4, 2, 60_000);
    const calls = recorder(scheduler);
    // The light organization was served a moment ago: more than one organization is active.
    (await scheduler.acquire('light'))();
    for (const label of ['h1', 'h2', 'h3', 'h4', 'h5']) void calls.take('heavy', label);
    await tick();
    // Two places stay free although the heavy organization has three calls waiting.
    expect(calls.granted).toEqual(['h1', 'h2']);
    expect(scheduler.inService).toBe(2);
    expect(scheduler.heldBy('heavy')).toBe(2);

    void calls.take('light', 'l1');
    void calls.take('light', 'l2');
    void calls.take('light', 'l3');
    await tick();
    expect(calls.granted).toEqual(['h1', 'h2', 'l1', 'l2']);

    // A heavy place freed goes to the heavy queue (light is at its share); a light one to the light queue.
    calls.releaseOldest();
    await tick();
    expect(calls.granted.at(-1)).toBe('h3');
    calls.releaseOldest();
    await tick();
    expect(calls.granted.at(-1)).toBe('h4');
    calls.releaseOldest();
    await tick();
    expect(calls.granted.at(-1)).toBe('l3');
    expect(scheduler.heldBy('heavy')).toBe(2);
    expect(scheduler.heldBy('light')).toBe(2);
    while (scheduler.inService > 0) {
      calls.releaseOldest();
      await tick();
    }
    expect(calls.granted).toEqual(['h1', 'h2', 'l1', 'l2', 'h3', 'h4', 'l3', 'h5']);
    expect(scheduler.heldBy('heavy')).toBe(0);
  });

  it('lets one organization alone use every place, and holds it to its share while another is active', async () => {
    const scheduler = new FairScheduler(4, 2, 30);
    const calls = recorder(scheduler);
    // A call on behalf of no organization (a key lookup) does not make the heavy one share.
    (await scheduler.acquire(''))();
    for (const label of ['h1', 'h2', 'h3', 'h4', 'h5']) void calls.take('heavy', label);
    await tick();
    expect(calls.granted).toEqual(['h1', 'h2', 'h3', 'h4']);

    // Another organization arrives: it gets the next free place, and the heavy one no more than its share.
    void calls.take('light', 'l1');
    calls.releaseOldest(); // h1
    await tick();
    expect(calls.granted.at(-1)).toBe('l1');
    calls.releaseOldest(); // h2: the heavy organization holds 2 (h3, h4), its share; h5 keeps waiting
    await tick();
    expect(scheduler.inService).toBe(3);
    calls.releaseOldest(); // h3
    await tick();
    expect(calls.granted.at(-1)).toBe('h5');
    calls.releaseOldest(); // h4
    calls.releaseOldest(); // l1
    await tick();
    expect(scheduler.heldBy('heavy')).toBe(1);

    // The light organization has been quiet for the window: the heavy one may take every place again.
    await new Promise((resolve) => setTimeout(resolve, 40));
    for (const label of ['h6', 'h7', 'h8']) void calls.take('heavy', label);
    await tick();
    expect(scheduler.heldBy('heavy')).toBe(4);
    expect(calls.granted.slice(-3)).toEqual(['h6', 'h7', 'h8']);
  });

  it('never starts a call whose deadline passed or whose caller went away while it waited', async () => {
    const scheduler = new FairScheduler(1);
    const calls = recorder(scheduler);
    await calls.take('a');
    const late = calls.take('b', 'late', Date.now() + 20).catch((error: unknown) => error);
    const gone = new AbortController();
    const cancelled = calls.take('c', 'gone', undefined, gone.signal).catch((error: unknown) => error);
    gone.abort();
    expect(await cancelled).toMatchObject({ reason: 'cancelled' });
    expect(await late).toBeInstanceOf(NotStarted);
    calls.releaseOldest();
    // Nothing waits any more: the place is free for the next call at once.
    await calls.take('d');
    expect(calls.granted).toEqual(['a', 'd']);
  });

  it('bounds nothing with a limit of 0', async () => {
    const scheduler = new FairScheduler(0);
    const calls = recorder(scheduler);
    await Promise.all(Array.from({ length: 100 }, (_, i) => calls.take('a', String(i))));
    expect(calls.granted).toHaveLength(100);
  });
});
