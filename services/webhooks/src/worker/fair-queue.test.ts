import { describe, expect, it } from 'vitest';
import { FairQueue } from './fair-queue';

const takeAll = <T>(queue: FairQueue<T>, canStart: (tenant: string, lane: string) => boolean = () => true): T[] => {
  const taken: T[] = [];
  for (let next = queue.next(canStart); next; next = queue.next(canStart)) taken.push(next.item);
  return taken;
};

describe('FairQueue', () => {
  it('takes organizations in turn, however many items one of them queued first', () => {
    const queue = new FairQueue<string>();
    for (let i = 1; i <= 4; i++) queue.push('org_a', 'wh_a', `a${i}`);
    queue.push('org_b', 'wh_b', 'b1');
    queue.push('org_b', 'wh_b', 'b2');
    expect(takeAll(queue)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'a4']);
    expect(queue.size).toBe(0);
  });

  it("takes an organization's subscriptions in turn", () => {
    const queue = new FairQueue<string>();
    for (const item of ['x1', 'x2', 'x3']) queue.push('org_a', 'wh_x', item);
    queue.push('org_a', 'wh_y', 'y1');
    queue.push('org_a', 'wh_z', 'z1');
    expect(takeAll(queue)).toEqual(['x1', 'y1', 'z1', 'x2', 'x3']);
  });

  it('passes over a lane that cannot start and serves the others, keeping its items in order', () => {
    const queue = new FairQueue<string>();
    for (const item of ['slow1', 'slow2']) queue.push('org_a', 'wh_slow', item);
    for (const item of ['fast1', 'fast2']) queue.push('org_b', 'wh_fast', item);
    expect(takeAll(queue, (_tenant, lane) => lane !== 'wh_slow')).toEqual(['fast1', 'fast2']);
    expect(queue.laneSize('org_a', 'wh_slow')).toBe(2);
    expect(takeAll(queue)).toEqual(['slow1', 'slow2']);
  });

  it('passes over an organization at its cap', () => {
    const queue = new FairQueue<string>();
    queue.push('org_a', 'wh_1', 'a1');
    queue.push('org_b', 'wh_2', 'b1');
    expect(queue.next((tenant) => tenant === 'org_b')?.item).toBe('b1');
    expect(queue.next((tenant) => tenant === 'org_b')).toBeNull();
    expect(queue.size).toBe(1);
  });

  it('drains one lane and keeps the rest', () => {
    const queue = new FairQueue<string>();
    queue.push('org_a', 'wh_1', 'a1');
    queue.push('org_a', 'wh_2', 'a2');
    queue.push('org_a', 'wh_1', 'a3');
    expect(queue.drain('org_a', 'wh_1')).toEqual(['a1', 'a3']);
    expect(queue.size).toBe(1);
    expect([...queue.items()]).toEqual(['a2']);
    expect(queue.drain('org_a', 'wh_2')).toEqual(['a2']);
    expect(queue.next(() => true)).toBeNull();
  });
});
