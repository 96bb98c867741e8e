import { describe, expect, it } from 'vitest';
import { approximateTotals, totalFreshnessMs } from './approximate-totals';

const middle = () => 0.5;

describe('approximate totals', () => {
  it('keeps a count 5 s up to 1,000 records, 5 s more per 1,000 beyond, a minute at most, drawn within ±10 %', () => {
    expect([0, 1_000, 2_000, 10_000, 12_000, 1_000_000].map((count) => totalFreshnessMs(count, middle))).toEqual([
      5_000, 5_000, 10_000, 50_000, 60_000, 60_000,
    ]);
    expect(totalFreshnessMs(10_000, () => 0)).toBe(45_000);
    expect(totalFreshnessMs(10_000, () => 1)).toBe(55_000);
  });

  it("counts a large organization again only once its longer freshness has passed; a small one's after 5 s", async () => {
    const totals = approximateTotals(middle);
    const counts = { big: 0, small: 0 };
    const countBig = async () => (counts.big++, 10_000);
    const countSmall = async () => (counts.small++, 200);
    await totals.get('big', countBig, 0);
    await totals.get('small', countSmall, 0);
    await totals.get('big', countBig, 49_999);
    await totals.get('small', countSmall, 5_001);
    expect(counts).toEqual({ big: 1, small: 2 });
    await totals.get('big', countBig, 50_001);
    expect(counts.big).toBe(2);
  });

  it('shares one count among the callers that ask while it runs, however long it takes', async () => {
    const totals = approximateTotals(middle);
    let runs = 0;
    let finish: (count: number) => void = () => undefined;
    const slow = () => (runs++, new Promise<number>((resolve) => (finish = resolve)));
    const first = totals.get('org', slow, 0);
    const second = totals.get('org', slow, 60_000);
    finish(300);
    expect([await first, await second, runs]).toEqual([300, 300, 1]);
  });
});
