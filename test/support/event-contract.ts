import { eventSpec, isEventType } from '@crm/shared/events';
import { isDeepStrictEqual } from 'node:util';

/**
 * Why an event body breaks the event catalogue (an unknown kind, `data` not matching its kind's schema or carrying
 * fields it does not declare), or null. The e2e helpers that read events (from Kafka or as a webhook receiver) check every one with it, so each
 * flow a test drives also proves its events match what the catalogue, and so the OpenAPI document, promises.
 */
export function contractViolation(event: { id?: unknown; type?: unknown; data?: unknown }): string | null {
  const type = String(event.type);
  if (!isEventType(type)) return `${String(event.id)}: ${type} is not a kind of the event catalogue`;
  const parsed = eventSpec(type).data.safeParse(event.data);
  if (!parsed.success) return `${String(event.id)} (${type}): ${parsed.error.message}`;
  // The schemas let unknown fields through (consumers must take additions); the document must still list them all.
  if (!isDeepStrictEqual(parsed.data, event.data))
    return `${String(event.id)} (${type}): data carries fields the catalogue does not declare`;
  return null;
}
