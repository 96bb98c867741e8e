/**
 * In-process mutual exclusion per key (e.g. "contacts:ct_…").
 *
 * Why: FerretDB 1.x evaluates a conditional update as read-then-write without isolation, so two concurrent
 * read-modify-write updates of one document can both "match" and one is lost (measured: 12 concurrent
 * compare-and-set updates kept 4–5 changes). Every read-modify-write of a document, and the outbox relay's
 * removal of published events, runs under the document's lock. On real MongoDB the revision check in the
 * update filter is atomic as well, which keeps several replicas correct; on FerretDB run one replica.
 */
export class KeyedLocks {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
