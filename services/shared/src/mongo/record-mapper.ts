import { OUTBOX_KEYS } from '../outbox/outbox-fields';

/** The keys a record never shows, per list of internal keys (a store passes the same array every time). */
const droppedKeys = new WeakMap<readonly string[], ReadonlySet<string>>();
const NO_INTERNAL_KEYS: readonly string[] = [];

/**
 * The one record mapper. A stored document as the domain sees it: `_id` becomes `id`; the outbox's keys and the
 * store's internal keys (sort keys, bookkeeping) go. The record is built by copying the keys it keeps: deleting
 * keys from a copy turned every record of a page into a slow dictionary-mode object (profiled: 14 % of the CRM's
 * time under a flood of 100-contact pages).
 */
export function toRecord<R>(doc: object, internalKeys: readonly string[] = NO_INTERNAL_KEYS): R {
  let dropped = droppedKeys.get(internalKeys);
  if (!dropped) {
    dropped = new Set([...OUTBOX_KEYS, ...internalKeys, '_id']);
    droppedKeys.set(internalKeys, dropped);
  }
  const source = doc as Record<string, unknown>;
  const record: Record<string, unknown> = { id: source._id };
  for (const key of Object.keys(source)) if (!dropped.has(key)) record[key] = source[key];
  return record as R;
}

/** The inverse: a record as a document to insert (`id` becomes `_id`). */
export function toDocument<R extends { id: string }>(record: R): Omit<R, 'id'> & { _id: string } {
  const { id, ...rest } = record;
  return { _id: id, ...rest };
}
