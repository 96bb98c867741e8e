import type { z } from 'zod';
import type { Scope } from '../scopes';

/** The service whose writes emit a kind (through its outbox). */
export type EventProducer = 'crm' | 'messaging' | 'agents' | 'webhooks';

export interface EventKindSpec<S extends z.ZodType = z.ZodType> {
  description: string;
  /** When it fires: the operation or the platform moment (docs/events.md states it for every kind). */
  fires: string;
  /** True for the 21 kinds that API writes emit (catalogue §6); the others only the platform emits. */
  api_write: boolean;
  producer: EventProducer;
  /** The read scope that guards the kind's data: a subscription may only receive what its key could read. */
  scope: Scope;
  /** The schema of `data`. */
  data: S;
  /** A realistic `data`: the OpenAPI example and the payload of POST /v1/webhooks/{id}/test. */
  example: (now: Date) => z.input<S>;
}

/** Infers `S` from `data`, so that `example` must compile against it. */
export const kind = <S extends z.ZodType>(spec: EventKindSpec<S>): EventKindSpec<S> => spec;

export type Family = Pick<EventKindSpec, 'producer' | 'scope'>;
export const CONTACT: Family = { producer: 'crm', scope: 'read:contacts' };
export const COMPANY: Family = { producer: 'crm', scope: 'read:companies' };
export const DEAL: Family = { producer: 'crm', scope: 'read:deals' };
export const TASK: Family = { producer: 'crm', scope: 'read:tasks' };
export const CONVERSATION: Family = { producer: 'messaging', scope: 'read:conversations' };
/**
 * Message events carry message bodies in bulk, as GET /v1/conversations/{id}/messages does under
 * `read:conversations` (docs/security.md); `read:messages` alone reads one message by its id.
 */
export const MESSAGE: Family = { producer: 'messaging', scope: 'read:conversations' };
export const CHANNEL: Family = { producer: 'messaging', scope: 'read:chatapp_instances' };
export const BROADCAST: Family = { producer: 'messaging', scope: 'read:broadcasts' };
export const AGENT: Family = { producer: 'agents', scope: 'read:ai_agents' };
export const WEBHOOK: Family = { producer: 'webhooks', scope: 'read:webhooks' };

export const api = { api_write: true } as const;
export const platform = { api_write: false } as const;
export const earlier = (now: Date) => new Date(now.getTime() - 3_600_000).toISOString();
