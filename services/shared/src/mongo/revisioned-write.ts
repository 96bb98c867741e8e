import type { OutboxEntry } from '../outbox/domain-event';
import { retryOnConflict } from './conflicts';
import type { Revised } from './record-store';

/** One change of a record: the fields it sets and the events it raises, built from the view of the changed record. */
export interface PlannedChange<R, V> {
  set: Partial<R>;
  events?: (view: V) => OutboxEntry[];
}

export interface RevisionedWrite<R, V> {
  /** The record as it is now; throws NOT_FOUND when it is gone. */
  read(): Promise<Revised<R>>;
  /** What changes, decided on the record read; null (or an empty set) when nothing does. */
  plan(current: Revised<R>): Promise<PlannedChange<R, V> | null> | PlannedChange<R, V> | null;
  /** The answer and the events' object, built from the record after the change (`current` is the one before). */
  view(next: Revised<R>, current: Revised<R>): Promise<V> | V;
  /** The write conditional on `current.rev` (a repository's updateAtRevision), which throws WriteConflict when it lost. */
  write(current: Revised<R>, set: Partial<R>, events: OutboxEntry[]): Promise<unknown>;
}

/**
 * Read → plan → write conditionally on the revision read, with the change's events in the same single-document
 * update; a lost race reads and plans again under the platform's conflict policy (conflicts.ts). No lock anywhere:
 * the store applies the conditional update atomically, so any number of replicas may write.
 */
export function writeRevision<R, V>(steps: RevisionedWrite<R, V>): Promise<V> {
  return retryOnConflict(async () => {
    const current = await steps.read();
    const planned = await steps.plan(current);
    if (!planned || Object.keys(planned.set).length === 0) return steps.view(current, current);
    const view = await steps.view({ ...current, ...planned.set }, current);
    await steps.write(current, planned.set, planned.events?.(view) ?? []);
    return view;
  });
}
