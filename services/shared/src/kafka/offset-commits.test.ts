import type { TopicPartitionOffsetAndMetadata } from 'kafkajs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OffsetCommits } from './offset-commits';

describe('offset commits', () => {
  let commits: TopicPartitionOffsetAndMetadata[][];
  let offsets: OffsetCommits;
  beforeEach(() => {
    vi.useFakeTimers();
    commits = [];
    offsets = new OffsetCommits(
      async (list) => void commits.push(list),
      1_000,
      () => undefined,
    );
  });
  afterEach(() => vi.useRealTimers());

  it('commits the first batch at once, then the latest offset of each partition once per interval', async () => {
    await offsets.handled('events', 0, '1');
    await offsets.handled('events', 0, '2');
    await offsets.handled('events', 1, '7');
    await offsets.handled('events', 0, '3');
    expect(commits).toEqual([[{ topic: 'events', partition: 0, offset: '1' }]]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(commits[1]).toEqual([
      { topic: 'events', partition: 0, offset: '3' },
      { topic: 'events', partition: 1, offset: '7' },
    ]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(commits).toHaveLength(2);
  });

  it('at a stop commits what is pending, then each batch at once; forgets a partition handed to another member', async () => {
    await offsets.handled('events', 0, '1');
    await offsets.handled('events', 0, '4');
    await offsets.handled('events', 1, '9');
    offsets.retain({ events: [1] });
    await offsets.finishing();
    expect(commits[1]).toEqual([{ topic: 'events', partition: 1, offset: '9' }]);
    await offsets.handled('events', 1, '10');
    expect(commits[2]).toEqual([{ topic: 'events', partition: 1, offset: '10' }]);
  });

  it('commits nothing more for a consumer that crashed: its pending offsets are dropped with the timer', async () => {
    await offsets.handled('events', 0, '1');
    await offsets.handled('events', 0, '2');
    offsets.discard();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(commits).toEqual([[{ topic: 'events', partition: 0, offset: '1' }]]);
  });

  it('reports a failed commit and goes on committing', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const flaky = new OffsetCommits(
      async (list) => {
        if (fail) throw new Error('coordinator moved');
        commits.push(list);
      },
      1_000,
      (error) => errors.push(error),
    );
    await flaky.handled('events', 0, '1');
    fail = false;
    await flaky.handled('events', 0, '2');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(errors).toHaveLength(1);
    expect(commits).toEqual([[{ topic: 'events', partition: 0, offset: '2' }]]);
  });
});
