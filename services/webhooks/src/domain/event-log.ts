import { type ConsumedEvent, notFound } from '@crm/shared';
import type { EventQuery, StoredEventRecord } from '../repository/event-store.repository';
import type { WebhookDeps } from './deps';
import { eventBody } from './event-body';

/**
 * Keeps every consumed event of every organization, whether or not a subscription wants it: the body webhooks
 * receive, the record it is about and the API request that caused it. Idempotent (the event id is the key), so a
 * re-consumed batch stores nothing twice.
 */
export async function storeEvents(deps: WebhookDeps, consumed: ConsumedEvent[]): Promise<void> {
  if (deps.settings.eventRetentionMs === 0) return;
  const records = consumed.map(({ event }): StoredEventRecord => {
    const createdAt = new Date(event.created_at);
    return {
      id: event.id,
      org_id: event.org_id,
      type: event.type,
      object_ids: objectIdsOf(event.data),
      request_id: event.request_id ?? null,
      created_at: createdAt,
      body: eventBody(event),
      expires_at: new Date(createdAt.getTime() + deps.settings.eventRetentionMs),
    };
  });
  await deps.events.store(records);
}

/**
 * The records an event is about, for the object_id filter: the id of each top-level record of `data` (`object`,
 * `note`, `contact`…) and each top-level `*_id` (a note's `deal_id`, a message's `broadcast_id`…).
 */
export function objectIdsOf(data: unknown): string[] {
  const ids = new Set<string>();
  for (const [key, value] of Object.entries((data ?? {}) as Record<string, unknown>)) {
    const nested = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
    if (typeof nested === 'string') ids.add(nested);
    if (key.endsWith('_id') && typeof value === 'string') ids.add(value);
  }
  return [...ids];
}

/** A stored event as the API answers it: the webhook body and request_id. */
export const viewEvent = (record: StoredEventRecord) => ({ body: record.body, request_id: record.request_id });

export async function listEvents(deps: WebhookDeps, orgId: string, query: EventQuery) {
  const [page, total] = await Promise.all([deps.events.list(orgId, query), deps.events.countForOrg(orgId)]);
  return { items: page.items.map(viewEvent), hasMore: page.hasMore, next: page.next, total };
}

export async function getEvent(deps: WebhookDeps, orgId: string, id: string) {
  const record = await deps.events.getById(orgId, id);
  if (!record) throw notFound('event');
  return viewEvent(record);
}
