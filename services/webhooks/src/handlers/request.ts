import type { PageInfo, PageRequest } from '@crm/proto/gen/webhooks/v1/webhooks';
import { AppError, isId, type IdKind } from '@crm/shared';
import type { KeysetPosition } from '../repository/keyset';

/** Services validate again what the gateway validated: proto3 has no required fields. */
export function requireId(kind: IdKind, value: string): string {
  if (!isId(kind, value)) throw new AppError('INVALID_ID', `The ${kind} id has an invalid format.`);
  return value;
}

export function pageOf(page: PageRequest | null | undefined): { limit: number; after: KeysetPosition | undefined } {
  const limit = Math.min(Math.max(page?.limit || 25, 1), 100);
  const after = page?.after?.id ? { value: page.after.value as unknown, id: page.after.id } : undefined;
  return { limit, after };
}

export function pageInfo(result: { total: number; hasMore: boolean; next: KeysetPosition | undefined }): PageInfo {
  return { total: result.total, has_more: result.hasMore, next: result.next ? { value: result.next.value, id: result.next.id } : undefined };
}

/** Picks `value` when it is one of `allowed`; anything else means "no filter" (the gateway already refused it). */
export const oneOf = <T extends string>(allowed: readonly T[], value: string | null | undefined): T | null =>
  allowed.find((candidate) => candidate === value) ?? null;
