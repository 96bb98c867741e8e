import type { Collection, Document } from 'mongodb';

type Listener = (collection: string) => void;

/**
 * Which collections of a process carry an embedded outbox, and who must hear that events were written to one.
 * The storage kit registers a collection when a repository defines it with `outbox: true`, and calls `written`
 * after every write that gave events to one of its records (after the commit, inside a transaction), so no writer
 * can forget to wake the relay; the relay subscribes when it starts.
 */
export class OutboxSignal {
  private readonly registered = new Map<string, Collection<Document>>();
  private readonly listeners = new Set<Listener>();

  register(collection: Collection<Document>): void {
    this.registered.set(collection.collectionName, collection);
  }

  /** The collections whose documents carry an outbox, in the order they were defined. */
  collections(): Collection<Document>[] {
    return [...this.registered.values()];
  }

  written(collection: string): void {
    for (const listener of this.listeners) listener(collection);
  }

  /** Returns the function that unsubscribes. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
