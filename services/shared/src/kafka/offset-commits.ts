import type { TopicPartitionOffsetAndMetadata } from 'kafkajs';

/**
 * The offsets a consumer has handled, committed at most once per `intervalMs` instead of after every batch.
 *
 * Each commit is a request the broker writes to its offsets log. Committed per batch, the four consumer groups
 * made as many commits as fetches — under a stream of creates about one broker request per event between them, and
 * the broker's CPU per create was as large as the CRM's. Committing less often only lengthens what a crash gives
 * back: a replica that dies re-reads at most the last interval's events, which handlers already treat as
 * re-delivery (idempotent by event id). A stop commits what is pending, and then each batch it lets finish, before
 * the group is left (`finishing`); a partition handed to another member is forgotten (`retain`), so its new owner's
 * progress is never overwritten.
 */
export class OffsetCommits {
  /** Next offset to read, per `topic:partition`. */
  private readonly pending = new Map<string, TopicPartitionOffsetAndMetadata>();
  private lastCommitAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private committing: Promise<void> = Promise.resolve();
  private immediate = false;

  constructor(
    private readonly commit: (offsets: TopicPartitionOffsetAndMetadata[]) => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Everything before `nextOffset` of the partition is handled; committed now or within the interval. */
  handled(topic: string, partition: number, nextOffset: string): Promise<void> {
    this.pending.set(`${topic}:${partition}`, { topic, partition, offset: nextOffset });
    if (this.immediate || Date.now() - this.lastCommitAt >= this.intervalMs) return this.flush();
    this.timer ??= setTimeout(() => void this.flush(), this.lastCommitAt + this.intervalMs - Date.now());
    return Promise.resolve();
  }

  /** The consumer is stopping: commits what is pending, and from now on each batch as it is handled. */
  finishing(): Promise<void> {
    this.immediate = true;
    return this.flush();
  }

  /** Commits what is pending (after a commit in progress). A failed commit is reported: those events are read again. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.committing = this.committing.then(async () => {
      if (this.pending.size === 0) return;
      const offsets = [...this.pending.values()];
      this.pending.clear();
      this.lastCommitAt = Date.now();
      await this.commit(offsets).catch(this.onError);
    });
    return this.committing;
  }

  /** After a rebalance: forgets the partitions this member no longer holds. */
  retain(assigned: Record<string, number[]>): void {
    for (const [key, { topic, partition }] of this.pending) if (!assigned[topic]?.includes(partition)) this.pending.delete(key);
  }

  /** The consumer is gone without a stop (it crashed): nothing more can be committed for it. */
  discard(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }
}
