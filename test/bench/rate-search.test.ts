import { describe, expect, it } from 'vitest';
import { bracketOf, nextRateToMeasure } from './rate-search';

const outcome = (rate_per_s: number, kept_up: boolean) => ({ rate_per_s, kept_up });

describe('the sustainable rate search', () => {
  it('brackets the sustainable rate between the highest rate kept and the lowest missed above it', () => {
    expect(bracketOf([outcome(10, true), outcome(25, false), outcome(50, false)])).toEqual({ kept: 10, missed: 25 });
    expect(bracketOf([outcome(10, false), outcome(25, false)])).toEqual({ kept: 0, missed: 10 });
    expect(bracketOf([outcome(10, true), outcome(25, true)])).toEqual({ kept: 25, missed: null });
  });

  it('measures the middle of the bracket next, until it is no wider than the resolution', () => {
    const waves = [outcome(10, true), outcome(25, false), outcome(50, false)];
    expect(nextRateToMeasure(waves, 2)).toBe(18);
    waves.push(outcome(18, false));
    expect(nextRateToMeasure(waves, 2)).toBe(14);
    waves.push(outcome(14, true));
    expect(nextRateToMeasure(waves, 2)).toBe(16);
    waves.push(outcome(16, true));
    expect(nextRateToMeasure(waves, 2)).toBeNull();
    expect(bracketOf(waves)).toEqual({ kept: 16, missed: 18 });
  });

  it('searches above a higher rate that kept up', () => {
    expect(bracketOf([outcome(10, false), outcome(14, true), outcome(25, false)])).toEqual({ kept: 14, missed: 25 });
    expect(nextRateToMeasure([outcome(10, true), outcome(11, false)], 0)).toBeNull();
  });

  it('steps up by a fifth while every rate kept up, then bisects the bracket it found', () => {
    const waves = [outcome(10, true), outcome(25, true), outcome(50, true)];
    expect(nextRateToMeasure(waves, 2)).toBe(60);
    waves.push(outcome(60, false));
    expect(nextRateToMeasure(waves, 2)).toBe(55);
    expect(nextRateToMeasure([outcome(5, true)], 2)).toBe(7);
  });
});
