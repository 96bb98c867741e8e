import { AppError } from '../errors/app-error';
import { isId, type IdKind } from '../ids';
import type { KeysetPosition } from '../mongo/list-page';

/** Services validate again what the gateway validated: proto3 has no required fields. */
export function requireId(kind: IdKind, value: string): string {
  if (!isId(kind, value)) throw new AppError('INVALID_ID', `The ${kind} id has an invalid format.`);
  return value;
}

type PageRequestMessage = { limit: number; after?: { value?: unknown; id: string } | undefined } | null | undefined;

/** A page request message → limit (1–100, default 25) and keyset position. */
export function pageOf(page: PageRequestMessage): { limit: number; after: KeysetPosition | undefined } {
  const limit = Math.min(Math.max(page?.limit || 25, 1), 100);
  const after = page?.after?.id ? { value: page.after.value, id: page.after.id } : undefined;
  return { limit, after };
}

/** A domain page → the PageInfo message every list response carries. */
export function pageInfo(result: { total: number; hasMore: boolean; next: KeysetPosition | undefined }) {
  return {
    total: result.total,
    has_more: result.hasMore,
    next: result.next ? { value: result.next.value, id: result.next.id } : undefined,
  };
}
