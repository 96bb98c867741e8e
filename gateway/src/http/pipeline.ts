import { AppError, currentCost, withCommandCount, withDeadline } from '@crm/shared';
import { parseOrThrow } from '@crm/shared/schemas';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clients } from '../clients';
import { runIdempotent } from '../idempotency/run-idempotent';
import type { IdempotencyStore, StoredResponse } from '../idempotency/idempotency.store';
import { requireScope, type Authenticate } from '../plugins/auth';
import type { RateLimiter } from '../plugins/rate-limit';
import { TOO_DEEP_JSON, UNPARSABLE_JSON, UNSUPPORTED_MEDIA } from './body-markers';
import { CursorCodec, listFingerprint } from './cursor';
import { refuseBrokenText, refuseOperatorNames } from './input-guards';
import { errorBody, list, one } from './envelope';
import type { ListResult, Page, RouteDefinition } from './route';

export interface PipelineDeps {
  authenticate: Authenticate;
  rateLimit: RateLimiter;
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
 * authenticate → rate limit → scope → params (INVALID_ID) → query → body → idempotency → handler → envelope.
 */
export function createHandler(route: RouteDefinition, deps: PipelineDeps) {
  const unbounded = handleRequest(route, deps);
  // The budget runs from the request's arrival (elapsedTime), not from when its body was read.
  const handle = (request: FastifyRequest, reply: FastifyReply): Promise<void> =>
    withDeadline(Date.now() - reply.elapsedTime + deps.requestTimeoutMs, () => unbounded(request, reply));
  if (deps.exposeDbCommands === 'off') return handle;
  // Counts the request's database commands and gRPC bytes (command-count.ts); handleRequest answers them in
  // X-Db-Commands and X-Grpc-Bytes (`<sent> <received>`).
  const all = deps.exposeDbCommands === 'all';
  return (request: FastifyRequest, reply: FastifyReply): Promise<void> =>
    all || request.headers['x-db-commands'] === '1' ? withCommandCount(() => handle(request, reply)).result : handle(request, reply);
}

function handleRequest(route: RouteDefinition, deps: PipelineDeps) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const principal = await deps.authenticate(request.headers.authorization);
    // The RateLimit headers go on every authenticated answer, the 429 included.
    const limit = await deps.rateLimit(principal);
    reply.headers(limit.headers);
    if (limit.refused) throw limit.refused;
    requireScope(principal, route.scope);

    const params = route.params ? parseOrThrow(route.params, request.params) : {};
    const rawQuery = (request.query ?? {}) as Record<string, unknown>;
    if (route.query) refuseOperatorNames(rawQuery);
    const query = route.query ? parseOrThrow(route.query, rawQuery) : {};
    const body = route.body ? parseOrThrow(route.body, bodyObject(request.body)) : undefined;

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
    const response = route.idempotent
      ? await runIdempotent(deps.idempotency, { orgId: principal.orgId, key: idempotencyKey, route: route.operationId, body }, execute)
      : { ...(await execute()), replayed: false };

    if (response.replayed) reply.header('Idempotent-Replayed', 'true');
    const cost = currentCost();
    if (cost) reply.header('X-Db-Commands', cost.commands.join(',')).header('X-Grpc-Bytes', `${cost.grpc.sent} ${cost.grpc.received}`);
    if (response.status >= 400) applyErrorHeaders(reply, response.body);
    reply.code(response.status);
    if (response.status === 204) await reply.send();
    else await reply.send(response.body);
  };
}

/**
 * A route's body must be a JSON object; no body counts as {} so that missing required fields are named (and a
 * body whose fields are all optional may be left out). A JSON `null` is a body, and not an object.
 */
function bodyObject(body: unknown): unknown {
  if (body === UNPARSABLE_JSON) throw new AppError('INVALID_JSON', 'The body is not valid JSON.');
  if (body === UNSUPPORTED_MEDIA) throw new AppError('UNSUPPORTED_MEDIA_TYPE');
  if (body === TOO_DEEP_JSON) throw new AppError('INVALID_JSON', 'The body nests arrays or objects too deeply.');
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AppError('INVALID_JSON', 'The body must be a JSON object.');
  refuseBrokenText(body);
  return body;
}

function pageOf(rawQuery: Record<string, unknown>, query: { limit?: number }, fingerprint: string, cursors: CursorCodec): Page {
  const cursor = rawQuery.cursor;
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor === ''))
    throw new AppError('INVALID_CURSOR', 'The cursor is malformed.');
  return { limit: query.limit ?? 25, after: typeof cursor === 'string' ? cursors.decode(cursor, fingerprint) : undefined };
}

function render(route: RouteDefinition, result: unknown, requestId: string, fingerprint: string, cursors: CursorCodec): StoredResponse {
  const success = route.success;
  switch (success.kind) {
    case 'none':
      return { status: 204, body: null };
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
