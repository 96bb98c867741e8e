import { AppError } from '../errors/app-error';
import { isId, type IdKind } from '../ids';
import type { KeysetPosition, Order, PageRequest } from '../mongo/list-page';

/** Services validate again what the gateway validated: proto3 has no required fields. */
export function requireId(kind: IdKind, value: string): string {
  if (!isId(kind, value)) throw new AppError('INVALID_ID', `The ${kind} id has an invalid format.`);
  return value;
}

type PageRequestMessage = { limit: number; after?: { value?: unknown; id: string } | undefined } | null | undefined;

/** Picks `value` when it is one of `allowed`; anything else (proto3's '' for "not given") is null. */
export const oneOf = <T extends string>(allowed: readonly T[], value: string | null | undefined): T | null =>
  allowed.find((candidate) => candidate === value) ?? null;

/** A page request message → limit (1–100, default 25) and keyset position. */
export function pageOf(page: PageRequestMessage): { limit: number; after: KeysetPosition | undefined } {
  const limit = Math.min(Math.max(page?.limit || 25, 1), 100);
  const after = page?.after?.id ? { value: page.after.value, id: page.after.id } : undefined;
  return { limit, after };
}

/** The order a request names; anything else ('' when not given) is the fallback. */
export const orderOf = (order: string, fallback: Order = 'desc'): Order => (order === 'asc' || order === 'desc' ? order : fallback);

/** A sorted list request → its page, order and sort: one of `sorts`, the first when absent or unknown. */
export function sortedPageOf<S extends string>(
  request: { page?: PageRequestMessage; sort: string; order: string },
  sorts: readonly [S, ...S[]],
): PageRequest & { sort: S; order: Order } {
  return { ...pageOf(request.page), sort: oneOf(sorts, request.sort) ?? sorts[0], order: orderOf(request.order) };
}

/**
 * A domain page → the PageInfo message every list response carries. A total may be a few seconds old (approximate,
 * spec §8), but never below what this very page shows: its items, and one more when it has more.
 */
export function pageInfo(result: { items: readonly unknown[]; total: number; hasMore: boolean; next: KeysetPosition | undefined }) {
  return {
    total: Math.max(result.total, result.items.length + (result.hasMore ? 1 : 0)),
    has_more: result.hasMore,
    next: result.next ? { value: result.next.value, id: result.next.id } : undefined,
  };
}
