/** Lean documents carry `_id` and outbox bookkeeping; the domain speaks `id` and never sees the outbox. */
export function plain<T extends { _id: string }>(doc: T): Omit<T, '_id'> & { id: string } {
  const { _id, ...rest } = doc as T & Record<string, unknown>;
  delete rest._outbox;
  delete rest._outbox_pending;
  delete rest._outbox_lease_until;
  delete rest._outbox_lease_owner;
  return { id: _id, ...rest } as Omit<T, '_id'> & { id: string };
}
