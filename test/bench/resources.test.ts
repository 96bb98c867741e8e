import { describe, expect, it } from 'vitest';
import { idleCpu } from './resources';

describe('idle CPU over windows', () => {
  it('takes the median window as the idle figure: a one-off busy window shows in the mean and the busiest, not in it', () => {
    // Five windows of 5 s: 20 ms of CPU in each (0.4 % of a core), and once 240 ms more (a heap reduction).
    const cpu = [0, 0.02, 0.04, 0.3, 0.32, 0.34];
    const at = [0, 5_000, 10_000, 15_000, 20_000, 25_000];
    expect(idleCpu(cpu, at)).toEqual({ median: 0.4, mean: 1.36, busiest: 5.2 });
  });

  it('answers nothing for a process it could not read', () => {
    expect(idleCpu([0, null, 0.1], [0, 5_000, 10_000])).toBeNull();
    expect(idleCpu([0], [0])).toBeNull();
  });
});
