import { AppError } from '@crm/shared/core';
import { withDeadline, withRequestId } from '@crm/shared/grpc';
import { currentCost, withCommandCount } from '@crm/shared/mongo-driver';
import { parseOrThrow } from '@crm/shared/schemas';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clients } from '../clients';
import { DEFAULT_PAGE } from '../schemas/registry';
import { runIdempotent } from '../idempotency/run-idempotent';
import type { IdempotencyStore, StoredResponse } from '../idempotency/idempotency.store';
import { requireScope, type Authenticate } from '../plugins/auth';
import type { RateLimiter } from '../plugins/rate-limit';
import { itemCost, routeCost } from '../plugins/route-costs';
import { admitTenant } from '../resilience/admission';
import type { FailedAuthThrottle } from '../resilience/failed-auth-throttle';
import type { InflightRequests } from '../resilience/inflight-limit';
import type { TenantBulkheads } from '../resilience/tenant-bulkhead';
import { CursorCodec, listFingerprint } from './cursor';
import { refuseOperatorNames } from './input-guards';
import { errorBody, list, one } from './envelope';
import { readBody } from './request-body';
import { bodyRequired, type ListResult, type Page, type RouteDefinition } from './route';

export interface PipelineDeps {
  authenticate: Authenticate;
  /** Failed authentication per client address, checked before the key is looked up. */
  authThrottle: FailedAuthThrottle;
  rateLimit: RateLimiter;
  /** Each organization's share of the requests served at once (tenant-bulkhead.ts). */
  bulkheads: TenantBulkheads;
  /** Open requests per organization (inflight-limit.ts): a request is counted against its own once its key is known. */
  inflight: InflightRequests;
  clients: Clients;
  cursors: CursorCodec;
  idempotency: IdempotencyStore;
  /** Diagnostics (config EXPOSE_DB_COMMANDS): count every request, only those that ask, or none. */
  exposeDbCommands: 'all' | 'asked' | 'off';
  /** Each request's budget: the gRPC calls made while serving it end by then (deadline.ts). */
  requestTimeoutMs: number;
}

/**
 * The one request pipeline every operation runs through:
 * failed-auth throttle → authenticate → rate limit (the route's cost) → scope → params (INVALID_ID) → query → body
 * (→ rate limit again for a batch's further items) →
 * organization's bulkhead → idempotency → handler → envelope.
 */
export function createHandler(route: RouteDefinition, deps: PipelineDeps) {
  const unbounded = handleRequest(route, deps);
  // The budget runs from the request's arrival (elapsedTime), not from when its body was read.
  const handle = (request: FastifyRequest, reply: FastifyReply): Promise<void> =>
    withRequestId(request.id, () => withDeadline(Date.now() - reply.elapsedTime + deps.requestTimeoutMs, () => unbounded(request, reply)));
  if (deps.exposeDbCommands === 'off') return handle;
  // Counts the request's database commands and gRPC bytes (command-count.ts); handleRequest answers them in
  // X-Db-Commands and X-Grpc-Bytes (`<sent> <received>`).
  const all = deps.exposeDbCommands === 'all';
  return (request: FastifyRequest, reply: FastifyReply): Promise<void> =>
    all || request.headers['x-db-commands'] === '1' ? withCommandCount(() => handle(request, reply)).result : handle(request, reply);
}

function handleRequest(route: RouteDefinition, deps: PipelineDeps) {
  const requiresBody = bodyRequired(route);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const authorization = request.headers.authorization;
    deps.authThrottle.check(request.ip, authorization);
    const principal = await deps.authenticate(authorization).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'INVALID_API_KEY') deps.authThrottle.failed(request.ip);
      throw error;
    });
    deps.authThrottle.succeeded(authorization);
    const rawQuery = (request.query ?? {}) as Record<string, unknown>;
    // The RateLimit headers go on every authenticated answer, the 429 included.
    const limit = await deps.rateLimit(principal, routeCost(route.operationId, rawQuery));
    reply.headers(limit.headers);
    if (limit.refused) throw limit.refused;
    requireScope(principal, route.scope);

    const params = route.params ? parseOrThrow(route.params, request.params) : {};
    if (route.query) refuseOperatorNames(rawQuery);
    const query = route.query ? parseOrThrow(route.query, rawQuery) : {};
    const body = route.body ? parseOrThrow(route.body, readBody(request.body, requiresBody)) : undefined;
    // A batch is charged one unit per item: the first on arrival, the rest once its body is known to be valid.
    const extraCost = itemCost(route.operationId, body) - 1;
    if (extraCost > 0) {
      const charged = await deps.rateLimit(principal, extraCost);
      reply.headers(charged.headers);
      if (charged.refused) throw charged.refused;
    }

    const fingerprint = listFingerprint(route.operationId, principal.orgId, rawQuery);
    const page = pageOf(rawQuery, query as { limit?: number }, fingerprint, deps.cursors);

    const execute = async (): Promise<StoredResponse> => {
      try {
        const result = await route.handle({ params, query, body, principal, clients: deps.clients, page });
        return render(route, result, request.id, fingerprint, deps.cursors);
      } catch (error) {
        if (error instanceof AppError && error.httpStatus < 500) return { status: error.httpStatus, body: errorBody(error, request.id) };
        throw error;
      }
    };
    const idempotencyKey = route.idempotent ? headerValue(request.headers['idempotency-key']) : undefined;
    const response = await admitTenant(deps, principal, reply, route.operationId, async () =>
      route.idempotent
        ? runIdempotent(deps.idempotency, { orgId: principal.orgId, key: idempotencyKey, route: route.operationId, body }, execute)
        : { ...(await execute()), replayed: false },
    );

    if (response.replayed) reply.header('Idempotent-Replayed', 'true');
    const cost = currentCost();
    if (cost) reply.header('X-Db-Commands', cost.commands.join(',')).header('X-Grpc-Bytes', `${cost.grpc.sent} ${cost.grpc.received}`);
    if (response.status >= 400) applyErrorHeaders(reply, response.body);
    reply.code(response.status);
    if (response.status === 204) await reply.send();
    else await reply.send(response.body);
  };
}

function pageOf(rawQuery: Record<string, unknown>, query: { limit?: number }, fingerprint: string, cursors: CursorCodec): Page {
  const cursor = rawQuery.cursor;
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor === ''))
    throw new AppError('INVALID_CURSOR', 'The cursor is malformed.');
  return { limit: query.limit ?? DEFAULT_PAGE, after: typeof cursor === 'string' ? cursors.decode(cursor, fingerprint) : undefined };
}

function render(route: RouteDefinition, result: unknown, requestId: string, fingerprint: string, cursors: CursorCodec): StoredResponse {
  const success = route.success;
  switch (success.kind) {
    case 'none':
      return { status: 204, body: null };
    case 'gone':
      throw new AppError('FEATURE_DISCONTINUED');
    case 'one':
      return { status: success.status, body: one(success.schema.parse(result), requestId) };
    case 'list': {
      const { items, page } = result as ListResult<unknown>;
      const next = page?.has_more && page.next ? cursors.encode(page.next, fingerprint) : undefined;
      const data = items.map((item) => success.schema.parse(item));
      return {
        status: 200,
        body: list(data, { total: page?.total ?? data.length, has_more: page?.has_more ?? false, next_cursor: next }, requestId),
      };
    }
  }
}

function applyErrorHeaders(reply: FastifyReply, body: unknown): void {
  const retryAfter = (body as { error?: { details?: { retry_after_seconds?: number } } }).error?.details?.retry_after_seconds;
  if (retryAfter) reply.header('Retry-After', String(retryAfter));
}

const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
