import type { OutboxEntry } from './domain-event';
import type { OutboxLeaseFields } from './outbox-signal';

/**
 * The embedded outbox. A record and the events of its change are written in ONE single-document update, so a
 * committed change always has its events (the store may lack multi-document transactions). The relay finds
 * records by the indexed `_outbox_pending` flag, publishes, then pulls the published entries. The storage kit
 * (mongo/record-store.ts) adds these fields and their index to every schema defined with `outbox: true`.
 */
export const OUTBOX_FIELDS = {
  _outbox: { type: [Object], default: undefined },
  _outbox_pending: { type: Boolean, default: undefined },
  _outbox_lease_until: { type: Date, default: undefined },
  _outbox_lease_owner: { type: String, default: undefined },
} as const;

/** The outbox's bookkeeping keys: never part of a record the domain sees. */
export const OUTBOX_KEYS = ['_outbox', '_outbox_pending', '_outbox_lease_until', '_outbox_lease_owner'];

/** A record no relay holds: never leased, or its lease ran out (its relay died or stalled). */
export const leaseFree = (now: Date) => ({ $or: [{ _outbox_lease_until: null }, { _outbox_lease_until: { $lt: now } }] });

/** Fields to merge into an inserted document; leased to this process's relay when one runs (OutboxSignal.leaseOnWrite). */
export function outboxOnInsert(entries: OutboxEntry[], lease?: OutboxLeaseFields): { _outbox: OutboxEntry[]; _outbox_pending: true } {
  return { _outbox: entries, _outbox_pending: true, ...lease };
}

/** Operators to merge into an update of an existing document. */
export function outboxOnUpdate(entries: OutboxEntry[]): { $push: { _outbox: { $each: OutboxEntry[] } }; $set: { _outbox_pending: true } } {
  return { $push: { _outbox: { $each: entries } }, $set: { _outbox_pending: true } };
}
