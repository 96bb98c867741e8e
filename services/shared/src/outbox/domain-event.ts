import { context, propagation } from '@opentelemetry/api';
import { newId } from '../ids';

/** An event as it travels on Kafka and, as {id, type, created_at, api_version, data}, to webhook receivers. */
export interface DomainEvent {
  id: string;
  type: string;
  created_at: string;
  api_version: 'v1';
  org_id: string;
  data: Record<string, unknown>;
}

/** The event as it waits in its record's embedded outbox, with the trace context of the write that made it. */
export interface OutboxEntry {
  id: string;
  type: string;
  org_id: string;
  created_at: Date;
  data: Record<string, unknown>;
  trace: Record<string, string>;
}

export function newOutboxEntry(orgId: string, type: string, data: Record<string, unknown>, now = new Date()): OutboxEntry {
  const trace: Record<string, string> = {};
  propagation.inject(context.active(), trace);
  return { id: newId('event'), type, org_id: orgId, created_at: now, data, trace };
}

export function toDomainEvent(entry: OutboxEntry): DomainEvent {
  return {
    id: entry.id,
    type: entry.type,
    created_at: entry.created_at.toISOString(),
    api_version: 'v1',
    org_id: entry.org_id,
    data: entry.data,
  };
}
