import { describe, expect, it } from 'vitest';
import { latestDateWrites } from './latest-date-writes';

/** A write that waits until released, recording what it was asked to store. */
function slowStore() {
  const writes: Array<{ key: string; at: number }> = [];
  const releases: Array<() => void> = [];
  const write = (key: string, at: Date) =>
    new Promise<void>((resolve) => {
      writes.push({ key, at: at.getTime() });
      releases.push(resolve);
    });
  const releaseAll = async () => {
    while (releases.length > 0) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { writes, write, releaseAll };
}

describe('latest date writes', () => {
  it('one write at a time per key; the dates asked meanwhile go in one write with the latest', async () => {
    const store = slowStore();
    const note = latestDateWrites(store.write);
    const settled: number[] = [];
    const first = note('b1', new Date(10)).then(() => settled.push(10));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [30, 20, 25].map((at) => note('b1', new Date(at)).then(() => settled.push(at)));
    const other = note('b2', new Date(5));
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.writes).toEqual([
      { key: 'b1', at: 10 },
      { key: 'b2', at: 5 },
    ]);
    await store.releaseAll();
    await Promise.all([first, ...later, other]);
    expect(store.writes).toEqual([
      { key: 'b1', at: 10 },
      { key: 'b2', at: 5 },
      { key: 'b1', at: 30 },
    ]);
    // Nobody hears "stored" before a write carrying its date (or a later one) finished.
    expect(settled.sort((a, b) => a - b)).toEqual([10, 20, 25, 30]);
  });

  it('a failed write fails its callers, and the next write still goes', async () => {
    let fail = true;
    const writes: number[] = [];
    const note = latestDateWrites(async (_key, at) => {
      writes.push(at.getTime());
      if (fail) throw new Error('down');
    });
    await expect(note('b1', new Date(1))).rejects.toThrow('down');
    fail = false;
    await note('b1', new Date(2));
    expect(writes).toEqual([1, 2]);
  });
});
