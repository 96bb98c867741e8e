import type { z } from 'zod';
import type { Scope } from '../scopes';
import { API_WRITE_KINDS } from './api-write-kinds';
import type { EventKindSpec, EventProducer } from './event-kind';
import { PLATFORM_KINDS } from './platform-kinds';

/**
 * Every event kind a webhook can subscribe to, once (catalogue §6, #82), in the order GET /v1/webhooks/event-types
 * lists them: the 21 kinds API writes emit, then the 27 only the platform emits (the 47 of the catalogue, and
 * webhook.replay.completed of the Events API). Producers build events with
 * `newEvent` (a wrong `data` does not compile), consumers receive typed payloads, and the public list, the OpenAPI
 * `webhooks` section and the test payloads are generated from here. Adding a kind is one entry (CONTRIBUTING.md).
 */
export const EVENT_CATALOGUE = { ...API_WRITE_KINDS, ...PLATFORM_KINDS } as const;

export type EventType = keyof typeof EVENT_CATALOGUE;

/** The `data` of an event of kind `T`, as its schema describes it. */
export type EventData<T extends EventType> = z.output<(typeof EVENT_CATALOGUE)[T]['data']>;

/** What a producer passes as `data` for kind `T`. */
export type EventDataInput<T extends EventType> = z.input<(typeof EVENT_CATALOGUE)[T]['data']>;

/** One entry of the public list (#82), with the producer and the read scope that guards it. */
export interface EventKind {
  type: EventType;
  description: string;
  api_write: boolean;
  producer: EventProducer;
  scope: Scope;
}

const specs = EVENT_CATALOGUE as Record<EventType, EventKindSpec>;

export const EVENT_TYPE_NAMES = Object.keys(EVENT_CATALOGUE) as [EventType, ...EventType[]];

export const EVENT_KINDS: readonly EventKind[] = Object.freeze(
  EVENT_TYPE_NAMES.map((type) => {
    const { description, api_write, producer, scope } = specs[type];
    return { type, description, api_write, producer, scope };
  }),
);

export const isEventType = (value: string): value is EventType => Object.hasOwn(EVENT_CATALOGUE, value);

/** The catalogue entry of a kind, with its schema untyped (for code that handles every kind alike). */
export const eventSpec = (type: EventType): EventKindSpec => specs[type];

/** An example `data` of the kind, as POST /v1/webhooks/{id}/test sends it. */
export const exampleEventData = (type: EventType, now: Date): Record<string, unknown> =>
  specs[type].example(now) as Record<string, unknown>;

/**
 * The read scopes a key needs to subscribe to `kinds`, to read their deliveries' bodies and to redeliver them: the
 * scope that guards each kind's data on the read routes (one table: the `scope` of each catalogue entry). Sorted,
 * without repeats; an unknown kind needs nothing here (the body schema refuses it).
 */
export function readScopesOf(kinds: readonly string[]): Scope[] {
  const scopes = new Set(kinds.filter(isEventType).map((type) => specs[type].scope));
  return [...scopes].sort();
}
