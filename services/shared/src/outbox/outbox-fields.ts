import type { OutboxEntry } from './domain-event';

/**
 * The embedded outbox. A record and the events of its change are written in ONE single-document update, so a
 * committed change always has its events (the store may lack multi-document transactions). The relay finds
 * records by the indexed `_outbox_pending` flag, publishes, then pulls the published entries.
 */
export const OUTBOX_FIELDS = {
  _outbox: { type: [Object], default: undefined },
  _outbox_pending: { type: Boolean, default: undefined },
  _outbox_lease_until: { type: Date, default: undefined },
} as const;

/** Fields to merge into an inserted document. */
export function outboxOnInsert(entries: OutboxEntry[]): { _outbox: OutboxEntry[]; _outbox_pending: true } {
  return { _outbox: entries, _outbox_pending: true };
}

/** Operators to merge into an update of an existing document. */
export function outboxOnUpdate(entries: OutboxEntry[]): { $push: { _outbox: { $each: OutboxEntry[] } }; $set: { _outbox_pending: true } } {
  return { $push: { _outbox: { $each: entries } }, $set: { _outbox_pending: true } };
}

/** The outbox's bookkeeping keys: never part of a record the domain sees. */
const OUTBOX_KEYS = ['_outbox', '_outbox_pending', '_outbox_lease_until', '_outbox_lease_owner'];

/** A stored document as the domain sees it: `_id` becomes `id`; the outbox's keys and the given internal keys go. */
export function recordOf<R>(doc: object, internalKeys: string[] = []): R {
  const { _id, ...rest } = doc as Record<string, unknown>;
  for (const key of [...OUTBOX_KEYS, ...internalKeys]) delete rest[key];
  return { id: _id, ...rest } as R;
}

/**
 * One single-document update that applies `set` and appends the change's events to the outbox, so no reader
 * ever sees one without the other. With `bumpRevision`, the record's `rev` advances (optimistic concurrency:
 * the caller's filter names the revision it read).
 */
export function updateWithEvents(
  set: Record<string, unknown>,
  events: OutboxEntry[],
  options: { bumpRevision?: boolean } = {},
): Record<string, object> {
  const revision: Record<string, object> = options.bumpRevision ? { $inc: { rev: 1 } } : {};
  if (events.length === 0) return { $set: set, ...revision };
  const outbox = outboxOnUpdate(events);
  return { $set: { ...set, ...outbox.$set }, $push: outbox.$push, ...revision };
}
