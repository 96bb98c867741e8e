import { eventSpec, isEventType } from '@crm/shared/events';

/**
 * Why an event body breaks the event catalogue (an unknown kind, or `data` not matching its kind's schema), or
 * null. The e2e helpers that read events (from Kafka or as a webhook receiver) check every one with it, so each
 * flow a test drives also proves its events match what the catalogue, and so the OpenAPI document, promises.
 */
export function contractViolation(event: { id?: unknown; type?: unknown; data?: unknown }): string | null {
  const type = String(event.type);
  if (!isEventType(type)) return `${String(event.id)}: ${type} is not a kind of the event catalogue`;
  const parsed = eventSpec(type).data.safeParse(event.data);
  return parsed.success ? null : `${String(event.id)} (${type}): ${parsed.error.message}`;
}
