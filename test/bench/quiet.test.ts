import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { machineTicks, untilQuiet } from './quiet';

/** A machine whose samples are busy by these percentages, one per half second (100 ticks each). */
function machine(busyPercents: number[]) {
  let total = 0;
  let idle = 0;
  let next = 0;
  return () => {
    const busy = next === 0 ? 0 : (busyPercents[next - 1] ?? busyPercents.at(-1) ?? 0);
    next++;
    total += 100;
    idle += 100 - busy;
    return { total, idle };
  };
}

describe('untilQuiet', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const run = async (busy: number[], options = {}) => {
    const waiting = untilQuiet(options, machine(busy));
    await vi.runAllTimersAsync();
    return waiting;
  };

  it('returns once the machine was quiet for the whole span', async () => {
    expect(await run([3, 5])).toEqual({ waited_ms: 1_000, quiet: true, busy_percent: 5 });
  });

  it('starts the span again after a busy sample', async () => {
    expect(await run([4, 60, 4, 40, 2, 3])).toEqual({ waited_ms: 3_000, quiet: true, busy_percent: 3 });
  });

  it('gives up after the longest wait and says how busy the machine still was', async () => {
    expect(await run([90], { maxMs: 5_000 })).toEqual({ waited_ms: 5_000, quiet: false, busy_percent: 90 });
  });

  it('reads this machine’s CPU counters', () => {
    const { total, idle } = machineTicks();
    expect(total).toBeGreaterThan(0);
    expect(idle).toBeGreaterThan(0);
    expect(idle).toBeLessThanOrEqual(total);
  });
});
