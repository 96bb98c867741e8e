import type { KafkaMessage } from 'kafkajs';
import { eventSpec, isEventType, type EventType } from '../events/event-catalogue';
import type { DomainEvent } from '../outbox/domain-event';

/** An event taken from the stream, with the W3C trace context of the write that caused it. */
export interface ConsumedEvent<T extends EventType = EventType> {
  event: DomainEvent<T>;
  trace: Record<string, string>;
  /** Its offset in its partition. */
  offset: string;
}

export type Decoded<K extends EventType> =
  | { outcome: 'event'; consumed: ConsumedEvent<K> }
  /** Not a kind this consumer handles (or a kind this version does not know): passed over. */
  | { outcome: 'skip' }
  /** Not a valid event: it can never be handled, so it goes to the dead-letter topic at once. */
  | { outcome: 'invalid'; type: string; reason: string };

const TRACE_HEADERS = ['traceparent', 'tracestate'];

const header = (message: KafkaMessage, name: string): string | undefined => message.headers?.[name]?.toString();

/**
 * Reads one message as a domain event of the catalogue. The `event-type` header (set by the outbox relay) spares
 * parsing the kinds a consumer does not handle; with `validate`, `data` must match its kind's schema.
 */
export function decodeEvent<K extends EventType>(
  message: KafkaMessage,
  handles: (type: EventType) => boolean,
  validate: boolean,
): Decoded<K> {
  const announced = header(message, 'event-type');
  if (announced !== undefined && (!isEventType(announced) || !handles(announced))) return { outcome: 'skip' };
  let event: Partial<DomainEvent> & Record<string, unknown>;
  try {
    event = JSON.parse(message.value?.toString('utf8') ?? '') as typeof event;
  } catch {
    return { outcome: 'invalid', type: announced ?? 'unknown', reason: 'the value is not JSON' };
  }
  const type = typeof event.type === 'string' ? event.type : 'unknown';
  if (typeof event.id !== 'string' || typeof event.org_id !== 'string' || typeof event.created_at !== 'string' || !event.data)
    return { outcome: 'invalid', type, reason: 'not a domain event: id, type, org_id, created_at and data are required' };
  if (!isEventType(type) || !handles(type)) return { outcome: 'skip' };
  if (validate) {
    const parsed = eventSpec(type).data.safeParse(event.data);
    if (!parsed.success) return { outcome: 'invalid', type, reason: `data does not match the ${type} schema: ${parsed.error.message}` };
  }
  const trace: Record<string, string> = {};
  for (const name of TRACE_HEADERS) {
    const value = header(message, name);
    if (value !== undefined) trace[name] = value;
  }
  return { outcome: 'event', consumed: { event: event as DomainEvent<K>, trace, offset: message.offset } };
}
