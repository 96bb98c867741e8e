import { describe, expect, it } from 'vitest';
import { KeyedLocks } from './keyed-locks';

describe('KeyedLocks', () => {
  it('runs tasks of one key one at a time, in arrival order, and other keys in parallel', async () => {
    const locks = new KeyedLocks();
    const log: string[] = [];
    let shared = 0;
    const increment = (key: string, label: string) =>
      locks.run(key, async () => {
        const read = shared;
        log.push(`start ${label}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        shared = read + 1;
        log.push(`end ${label}`);
      });
    await Promise.all([increment('a', '1'), increment('a', '2'), increment('a', '3')]);
    expect(shared).toBe(3);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);

    const order: string[] = [];
    await Promise.all([
      locks.run('x', async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push('x');
      }),
      locks.run('y', async () => {
        order.push('y');
      }),
    ]);
    expect(order).toEqual(['y', 'x']);
  });

  it('releases the key when a task throws', async () => {
    const locks = new KeyedLocks();
    await expect(locks.run('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(locks.run('k', async () => 'next')).resolves.toBe('next');
  });
});
