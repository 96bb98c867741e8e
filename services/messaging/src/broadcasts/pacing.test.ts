import { describe, expect, it } from 'vitest';
import { paceOf, SendSchedule } from './pacing';

/** Starts `count` sends, each `late` ms after the schedule allowed it; returns their start times. */
function run(schedule: SendSchedule, count: number, late: (i: number) => number, from = 1_000_000): number[] {
  const starts: number[] = [];
  let now = from;
  for (let i = 0; i < count; i++) {
    now = Math.max(now, schedule.nextAt()) + late(i);
    schedule.started(now);
    starts.push(now);
  }
  return starts;
}

describe('broadcast pacing', () => {
  it('official numbers catch up to the provider ceiling; QR-code numbers never go faster than their profile', () => {
    expect(paceOf('aggressive', 'official', 1)).toEqual({ interval: 1000 / 60, minGap: 1000 / 80 });
    expect(paceOf('moderate', 'official', 2)).toEqual({ interval: 1000 / 60, minGap: 1000 / 160 });
    expect(paceOf('aggressive', 'qrcode', 1)).toEqual({ interval: 1000, minGap: 1000 });
  });

  it('keeps the promised rate when each send starts a little late: lateness does not add up', () => {
    const starts = run(new SendSchedule(paceOf('aggressive', 'official', 1)), 601, (i) => (i % 3 === 0 ? 6 : 2));
    const rate = 600 / ((starts.at(-1)! - starts[0]!) / 1000);
    expect(rate).toBeGreaterThan(59.5);
    expect(rate).toBeLessThanOrEqual(60.01);
  });

  it('catches up after a short stall no faster than the provider ceiling', () => {
    const schedule = new SendSchedule(paceOf('aggressive', 'official', 1));
    const starts = run(schedule, 151, (i) => (i === 10 ? 500 : 0));
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000 / 80 - 1e-9);
    // 500 ms behind, gaining 1000/60 - 1000/80 ms a send: back on the schedule 120 sends later.
    expect(starts[150]! - starts[0]!).toBeCloseTo(2500, 6);
  });

  it('starts a new schedule after a long stall or a restart instead of bursting', () => {
    const schedule = new SendSchedule(paceOf('aggressive', 'official', 1));
    const starts = run(schedule, 20, (i) => (i === 5 ? 5_000 : 0));
    const after = starts.slice(6).map((at, i) => at - starts[5 + i]!);
    for (const gap of after) expect(gap).toBeCloseTo(1000 / 60, 6);
    schedule.restart();
    const last = starts.at(-1)!;
    expect(schedule.nextAt()).toBeCloseTo(last + 1000 / 80, 6);
    schedule.started(last + 3_000);
    expect(schedule.nextAt()).toBeCloseTo(last + 3_000 + 1000 / 60, 6);
  });

  it('a QR-code number waits its whole interval after a late send', () => {
    const starts = run(new SendSchedule(paceOf('moderate', 'qrcode', 1)), 5, (i) => (i === 1 ? 700 : 0));
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    expect(gaps).toEqual([2_700, 2_000, 2_000, 2_000]);
  });
});
