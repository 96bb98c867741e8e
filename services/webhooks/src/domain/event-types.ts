import { EVENT_KINDS, type EventKind } from '@crm/shared/schemas';
import type { KeysetPosition } from '@crm/shared';

/** #82: the 48 kinds in catalogue order, paged by position in that order. */
export function listEventTypes(page: { limit: number; after: KeysetPosition | undefined }) {
  const start = page.after ? Math.max(EVENT_KINDS.findIndex((kind) => kind.type === page.after?.id) + 1, 0) : 0;
  const items: EventKind[] = EVENT_KINDS.slice(start, start + page.limit);
  const hasMore = start + page.limit < EVENT_KINDS.length;
  const last = items[items.length - 1];
  return { items, hasMore, next: hasMore && last ? { value: start + items.length, id: last.type } : undefined, total: EVENT_KINDS.length };
}
