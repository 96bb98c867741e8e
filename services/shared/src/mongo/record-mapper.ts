import { OUTBOX_KEYS } from '../outbox/outbox-fields';

/**
 * The one record mapper. A stored document as the domain sees it: `_id` becomes `id`; the outbox's keys and the
 * store's internal keys (sort keys, bookkeeping) go.
 */
export function toRecord<R>(doc: object, internalKeys: readonly string[] = []): R {
  const { _id, ...rest } = doc as Record<string, unknown>;
  for (const key of [...OUTBOX_KEYS, ...internalKeys]) delete rest[key];
  return { id: _id, ...rest } as R;
}

/** The inverse: a record as a document to insert (`id` becomes `_id`). */
export function toDocument<R extends { id: string }>(record: R): Omit<R, 'id'> & { _id: string } {
  const { id, ...rest } = record;
  return { _id: id, ...rest };
}
