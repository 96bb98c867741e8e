import { context, propagation } from '@opentelemetry/api';
import type { EventData, EventDataInput, EventType } from '../events/event-catalogue';
import { currentRequestId } from '../grpc/request-id';
import { newId } from '../ids';

/**
 * An event as it travels on Kafka and, as {id, type, created_at, api_version, data}, to webhook receivers. A union
 * over the kinds, so that narrowing on `type` types `data`.
 */
export type DomainEvent<T extends EventType = EventType> = {
  [K in T]: {
    id: string;
    type: K;
    created_at: string;
    api_version: 'v1';
    org_id: string;
    data: EventData<K>;
    /** The public id of the API request whose write raised the event; absent for platform events. Never sent to webhooks. */
    request_id?: string;
  };
}[T];

/** The event as it waits in its record's embedded outbox, with the trace context of the write that made it. */
export type OutboxEntry<T extends EventType = EventType> = {
  [K in T]: {
    id: string;
    type: K;
    org_id: string;
    created_at: Date;
    data: EventDataInput<K>;
    trace: Record<string, string>;
    request_id?: string;
  };
}[T];

/**
 * The one way to make an event: its `data` must be what the event catalogue declares for `type` (a wrong payload
 * does not compile). It carries the trace context of the write, so the webhook delivery joins the write's trace.
 */
export function newEvent<T extends EventType>(orgId: string, type: T, data: EventDataInput<T>, now = new Date()): OutboxEntry<T> {
  const trace: Record<string, string> = {};
  propagation.inject(context.active(), trace);
  const requestId = currentRequestId();
  return {
    id: newId('event'),
    type,
    org_id: orgId,
    created_at: now,
    data,
    trace,
    ...(requestId ? { request_id: requestId } : {}),
  } as OutboxEntry<T>;
}

export function toDomainEvent(entry: OutboxEntry): DomainEvent {
  return {
    id: entry.id,
    type: entry.type,
    created_at: entry.created_at.toISOString(),
    api_version: 'v1',
    org_id: entry.org_id,
    data: entry.data,
    ...(entry.request_id ? { request_id: entry.request_id } : {}),
  } as DomainEvent;
}
