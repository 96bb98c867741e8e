import { describe, expect, it } from 'vitest';
import { paceOf, SendSchedule } from './pacing';

/**
 * Starts `count` sends the way a lane does: a send that is already due starts at once, one that is not waits for
 * a timer, which fires `late(i)` ms after its time (a busy machine). Returns the start times.
 */
function run(schedule: SendSchedule, count: number, late: (i: number) => number, from = 1_000_000): number[] {
  const starts: number[] = [];
  let now = from;
  for (let i = 0; i < count; i++) {
    const at = schedule.nextAt();
    if (at > now) now = at + late(i);
    schedule.started(now);
    starts.push(now);
  }
  return starts;
}

/** A repeatable stream of numbers in [0, 1) (the same test every run). */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** The most starts in any window of `ms` (half-open, like a provider counting its last second). */
function mostInWindow(starts: number[], ms: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < starts.length; last++) {
    while (starts[last]! - starts[first]! >= ms) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

const rateOf = (starts: number[]) => (starts.length - 1) / ((starts.at(-1)! - starts[0]!) / 1000);

describe('broadcast pacing', () => {
  it('official numbers catch up below the provider ceiling; QR-code numbers never go faster than their profile', () => {
    expect(paceOf('aggressive', 'official', 1)).toEqual({ interval: 1000 / 60, minGap: 1100 / 80, burst: 100 });
    expect(paceOf('moderate', 'official', 2)).toEqual({ interval: 1000 / 60, minGap: 550 / 80, burst: 50 });
    expect(paceOf('aggressive', 'qrcode', 1)).toEqual({ interval: 1000, minGap: 1000, burst: 0 });
  });

  it('keeps the promised rate when every timer fires late: lateness does not add up', () => {
    const random = seeded(7);
    const starts = run(new SendSchedule(paceOf('aggressive', 'official', 1)), 1_201, () => random() * 150);
    expect(rateOf(starts)).toBeGreaterThan(59.5);
    expect(rateOf(starts)).toBeLessThanOrEqual(60.01);
  });

  it('never starts a send ahead of the profile, and never more than the provider’s 80 in any second', () => {
    for (const seed of [1, 2, 3]) {
      const random = seeded(seed);
      // Timers late by up to 150 ms, and now and then a stall of up to 0.9 s (a pause of the event loop).
      const late = () => (random() < 0.02 ? random() * 900 : random() * 150);
      const starts = run(new SendSchedule(paceOf('aggressive', 'official', 1)), 3_000, late);
      starts.forEach((at, i) => expect(at).toBeGreaterThanOrEqual(starts[0]! + i * (1000 / 60) - 1e-6));
      expect(mostInWindow(starts, 1000)).toBeLessThanOrEqual(80);
      // Sends held back by a late timer start together, a few at a time: 1 + burst / minGap at most.
      expect(mostInWindow(starts, 1)).toBeLessThanOrEqual(8);
    }
  });

  it('catches up after a short stall no faster than the ceiling allows', () => {
    const schedule = new SendSchedule(paceOf('aggressive', 'official', 1));
    const starts = run(schedule, 151, (i) => (i === 10 ? 500 : 0));
    expect(mostInWindow(starts, 1000)).toBeLessThanOrEqual(80);
    // 500 ms behind, the 8 sends it allows at once, then one every 1100/80 ms until back on the schedule.
    expect(starts.filter((at) => at === starts[10]).length).toBe(8);
    expect(starts[150]! - starts[0]!).toBeCloseTo(2500, 6);
  });

  it('starts a new schedule after a long stall or a restart instead of bursting', () => {
    const schedule = new SendSchedule(paceOf('aggressive', 'official', 1));
    const starts = run(schedule, 20, (i) => (i === 5 ? 5_000 : 0));
    const after = starts.slice(6).map((at, i) => at - starts[5 + i]!);
    for (const gap of after) expect(gap).toBeCloseTo(1000 / 60, 6);
    schedule.restart();
    const last = starts.at(-1)!;
    expect(schedule.nextAt()).toBeLessThanOrEqual(last + 1100 / 80);
    schedule.started(last + 3_000);
    expect(schedule.nextAt()).toBeCloseTo(last + 3_000 + 1000 / 60, 6);
  });

  it('a QR-code number waits its whole interval after a late send, and never sends two at once', () => {
    const starts = run(new SendSchedule(paceOf('moderate', 'qrcode', 1)), 5, (i) => (i === 1 ? 700 : 0));
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    expect(gaps).toEqual([2_700, 2_000, 2_000, 2_000]);
  });
});
