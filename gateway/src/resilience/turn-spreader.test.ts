import { describe, expect, it } from 'vitest';
import { turnSpreader } from './turn-spreader';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('turnSpreader', () => {
  it('runs the jobs given at once a few per turn, in order, with the work of each turn in between', async () => {
    const later = turnSpreader(3);
    const ran: string[] = [];
    // The first job starts other work for the next turn (as a request admitted meanwhile would have).
    later(() => {
      ran.push('job 1');
      setImmediate(() => ran.push('other work'));
    });
    for (let i = 2; i <= 7; i++) later(() => ran.push(`job ${i}`));
    // None runs where they are given: the turn that gave them ends first.
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual(['job 1', 'job 2', 'job 3']);
    for (let turn = 0; turn < 3; turn++) await nextTurn();
    expect(ran).toEqual(['job 1', 'job 2', 'job 3', 'other work', 'job 4', 'job 5', 'job 6', 'job 7']);
  });

  it('starts again when given a job after it has run out', async () => {
    const later = turnSpreader(2);
    const ran: number[] = [];
    later(() => ran.push(1));
    await nextTurn();
    later(() => ran.push(2));
    await nextTurn();
    expect(ran).toEqual([1, 2]);
  });
});
