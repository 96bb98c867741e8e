import type { FilterQuery } from 'mongoose';
import type { SortSpec } from './find-documents';

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

/** One page of a list: at most `limit` rows after the position of the previous page's last row. */
export interface PageRequest {
  limit: number;
  after: KeysetPosition | undefined;
}

/**
 * The order of a list: a stored field (a sort key may be internal), its direction and type. The position travels
 * in cursors as JSON (a date as its ISO string) and is read back by its type. Rows with equal values are ordered
 * by `_id`, unless the field is `unique` within the list's filter (its index then serves the sort alone).
 */
export interface PageOrder {
  field: string;
  order: Order;
  type: 'date' | 'number' | 'string';
  unique?: boolean;
}

/** The order as the store's sort takes it: 1 ascending, -1 descending. */
export const directionOf = (order: PageOrder): 1 | -1 => (order.order === 'asc' ? 1 : -1);

/** A position's value as its type (a cursor carries a date as its ISO string). */
export const decode = (value: unknown, type: PageOrder['type']): unknown => {
  if (type === 'date') return value instanceof Date ? value : new Date(String(value));
  return type === 'number' ? Number(value) : String(value);
};

const encode = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

/**
 * The query of one keyset page: stable under inserts, no skip. The bound on the field repeats the keyset's lower
 * (or upper) bound outside its `$or`, so an index scan starts at the position, not at the list's first row.
 */
export function keysetQuery<D>(
  conditions: FilterQuery<D>[],
  order: PageOrder,
  after: KeysetPosition | undefined,
): { filter: FilterQuery<D>; sort: SortSpec } {
  const direction = directionOf(order);
  const sort: SortSpec = order.unique ? { [order.field]: direction } : { [order.field]: direction, _id: direction };
  if (!after) return { filter: (conditions.length > 0 ? { $and: conditions } : {}) as FilterQuery<D>, sort };
  const value = decode(after.value, order.type);
  const op = order.order === 'asc' ? '$gt' : '$lt';
  const bound = { [order.field]: { [order.order === 'asc' ? '$gte' : '$lte']: value } };
  const position = order.unique
    ? { [order.field]: { [op]: value } }
    : { $or: [{ [order.field]: { [op]: value } }, { [order.field]: value, _id: { [op]: after.id } }] };
  return { filter: { $and: [...conditions, bound, position] } as FilterQuery<D>, sort };
}

/** Rows fetched with limit + 1 → the page, whether more exist, and the position of its last row. */
export function toPage<T extends { _id: string }>(rows: T[], limit: number, field: string): KeysetPage<T> {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  const next = hasMore && last ? { value: encode((last as Record<string, unknown>)[field]), id: last._id } : undefined;
  return { items, hasMore, next };
}
