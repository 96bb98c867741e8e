import type { ErrorCode, Scope } from '@crm/shared/core';
import type { z } from 'zod';
import type { Clients } from '../clients';
import type { CursorPosition } from './cursor';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Principal {
  orgId: string;
  keyId: string;
  scopes: string[];
  plan: string;
}

export interface Page {
  limit: number;
  after: CursorPosition | undefined;
}

export interface HandlerContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  principal: Principal;
  clients: Clients;
  /** Lists only: the page asked for, decoded from `limit` and `cursor`. */
  page: Page;
}

/** What a list handler returns; the gateway turns `next` into an opaque cursor. */
export interface ListResult<T> {
  items: T[];
  page: { total: number; has_more: boolean; next?: CursorPosition | null } | null | undefined;
}

type Success =
  | { status: 200 | 201 | 202; kind: 'one'; schema: z.ZodType }
  | { status: 200; kind: 'list'; schema: z.ZodType }
  | { status: 204; kind: 'none' }
  /** A discontinued operation: it never succeeds, its only answer is 410 (documented among its errors). */
  | { status: 410; kind: 'gone' };

/**
 * One operation of the public API: its contract (used for validation, serialization and the OpenAPI
 * document) and its handler, which calls one service method.
 */
export interface RouteDefinition<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI form, e.g. /v1/contacts/{id} */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** The one scope the key must hold; null for routes any valid key may call. */
  scope: Scope | null;
  params?: P;
  query?: Q;
  body?: B;
  success: Success;
  errors?: ErrorCode[];
  idempotent?: boolean;
  /**
   * How many requests the call counts for in the rate limits, from its validated body (a batch: one per item);
   * one when absent. The first is counted on arrival, the rest once the body is read.
   */
  rateCost?: (body: z.infer<B>) => number;
  deprecated?: boolean;
  handle: (context: HandlerContext<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<unknown>;
}

/** Keeps the handler's context typed by the route's own schemas. */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  route: RouteDefinition<P, Q, B>,
): RouteDefinition {
  return route as unknown as RouteDefinition;
}

/** Whether the route's body must be sent: no body reads as `{}` (request-body.ts), so only where `{}` is invalid. */
export const bodyRequired = (route: RouteDefinition): boolean => route.body !== undefined && !route.body.safeParse({}).success;
