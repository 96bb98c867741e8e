import type { FilterQuery, SortOrder } from 'mongoose';

export type Order = 'asc' | 'desc';

export interface KeysetPosition {
  value: unknown;
  id: string;
}

export interface KeysetPage<T> {
  items: T[];
  hasMore: boolean;
  next: KeysetPosition | undefined;
}

/**
 * Keyset pagination on (field, _id): stable under inserts, no skip. `after` is the position of the last row of
 * the previous page; the caller fetches limit + 1 rows to learn whether more exist.
 */
export function keyset(
  field: string,
  order: Order,
  after: KeysetPosition | undefined,
): { filter: FilterQuery<unknown>; sort: Record<string, SortOrder> } {
  const direction = order === 'asc' ? 1 : -1;
  const sort: Record<string, SortOrder> = field === '_id' ? { _id: direction } : { [field]: direction, _id: direction };
  if (!after) return { filter: {}, sort };
  const op = order === 'asc' ? '$gt' : '$lt';
  if (field === '_id') return { filter: { _id: { [op]: after.id } }, sort };
  return {
    filter: { $or: [{ [field]: { [op]: after.value } }, { [field]: after.value, _id: { [op]: after.id } }] },
    sort,
  };
}

export function toPage<T extends { _id: string }>(rows: T[], limit: number, positionOf: (row: T) => unknown): KeysetPage<T> {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, hasMore, next: hasMore && last ? { value: positionOf(last), id: last._id } : undefined };
}
