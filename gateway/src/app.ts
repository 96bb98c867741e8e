import { AppError, newId, TtlCache } from '@crm/shared/core';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Clients } from './clients';
import type { GatewayConfig } from './config';
import { corsHeaders, createCors } from './http/cors';
import { CursorCodec } from './http/cursor';
import { errorBody } from './http/envelope';
import { handleError } from './http/error-handler';
import { createHandler } from './http/pipeline';
import type { RouteDefinition } from './http/route';
import { GracefulShutdown } from './http/graceful-shutdown';
import { registerBodyParsers } from './http/request-body';
import { checkQuery, serverLimits } from './http/request-limits';
import { measureRequests, recordAnswer } from './http/request-metrics';
import { admittingServer } from './http/admitting-server';
import { createFailedAuthThrottle } from './resilience/failed-auth-throttle';
import { createEarlyAdmission } from './resilience/early-admission';
import { InflightRequests } from './resilience/inflight-limit';
import { connectionPause, pauseRefusedConnections } from './resilience/refused-connection-pause';
import { limitsByPlan, TenantBulkheads } from './resilience/tenant-bulkhead';
import { createRouteTable, toFastifyPath } from './http/route-table';
import type { IdempotencyStore } from './idempotency/idempotency.store';
import { buildOpenApiDocument } from './openapi/build-document';
import { registerDocsPage } from './openapi/docs-page';
import { createAuthenticator } from './plugins/auth';
import { createRateLimiter } from './plugins/rate-limit';
import type { RateLimitCounter } from './plugins/rate-limit.store';
import { ALL_ROUTES } from './routes';

export interface AppDeps {
  config: GatewayConfig;
  clients: Clients;
  idempotency: IdempotencyStore;
  /** The rate limits' shared counter (rate-limit.store.ts). */
  rateLimitCounter: RateLimitCounter;
  /** Readiness of the backing services and store. */
  ready: () => Promise<boolean>;
  /** The SIGTERM sequence (main.ts runs it): readiness fails while it drains, then late requests are refused. */
  shutdown?: GracefulShutdown;
  routes?: RouteDefinition[];
  logger?: boolean | object;
}

/** API answers carry one organization's data: never stored by a browser or proxy cache, never content-sniffed. */
const API_ANSWER_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' } as const;

/** 405 with Allow when the path exists with other methods, else 404 ROUTE_NOT_FOUND. */
function answerUnrouted(table: ReturnType<typeof createRouteTable>) {
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const allowed = table.allowedMethods(request.url);
    if (allowed) {
      void reply.header('Allow', allowed.join(', '));
      return reply
        .code(405)
        .send(
          errorBody(
            new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; allowed: ${allowed.join(', ')}.`),
            request.id,
          ),
        );
    }
    return reply
      .code(404)
      .send(errorBody(new AppError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`), request.id));
  };
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const routes = deps.routes ?? ALL_ROUTES;
  const table = createRouteTable(routes);
  const shutdown = deps.shutdown ?? new GracefulShutdown(0);
  const authenticate = createAuthenticator(deps.clients, deps.config.AUTH_CACHE_TTL_MS);
  const bulkheads = new TenantBulkheads(
    limitsByPlan(deps.config.TENANT_CONCURRENCY, deps.config.TENANT_QUEUE_LIMIT, deps.config.TENANT_QUEUE_WAIT_MS),
    deps.config.TENANT_LATENCY_TOLERANCE,
  );
  const inflight = new InflightRequests({ max: deps.config.MAX_INFLIGHT_REQUESTS, perOrg: deps.config.MAX_INFLIGHT_REQUESTS_PER_ORG });
  const afterAnswer = connectionPause({
    afterRefusals: deps.config.REFUSED_CONNECTION_PAUSE_AFTER,
    maxMs: deps.config.REFUSED_CONNECTION_PAUSE_MS,
  });
  const originHeaders = corsHeaders(deps.config.CORS_ALLOWED_ORIGINS);
  const admitEarly = createEarlyAdmission({
    inflight,
    bulkheads,
    principalOf: authenticate.peek,
    requestTimeoutMs: deps.config.REQUEST_TIMEOUT_MS,
    serving: () => shutdown.ready,
    headersFor: (origin) => ({ ...originHeaders(origin).headers, ...API_ANSWER_HEADERS }),
    refused: (request, response, error, startedAt) => {
      recordAnswer({
        route: table.templateOf(request.url ?? '/') ?? 'unmatched',
        method: request.method ?? 'GET',
        status: error.httpStatus,
        errorCode: error.code,
        seconds: (performance.now() - startedAt) / 1000,
      });
      response.once('finish', () => afterAnswer(request.socket, error.httpStatus, Number(error.details?.retry_after_seconds)));
    },
  });
  const limits = serverLimits(deps.config);
  const app = Fastify({
    logger: deps.logger ?? false,
    ...limits,
    serverFactory: (handler) => admittingServer(limits, admitEarly, handler),
    genReqId: () => newId('request'),
    // Requests that arrive while closing are answered by GracefulShutdown, in the envelope.
    return503OnClosing: false,
    requestIdHeader: false,
    // Answers are counted in metrics and traced: a log line per request would be one more write per request.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  });

  const unrouted = answerUnrouted(table);
  const cors = createCors(deps.config.CORS_ALLOWED_ORIGINS, (url) => table.allowedMethods(url));
  const queryLimits = { maxLength: deps.config.QUERY_MAX_LENGTH, maxParams: deps.config.QUERY_MAX_PARAMS };
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('X-Request-Id', request.id);
    // (The docs page and its files set their own caching, CSP and nosniff: openapi/docs-page.ts.)
    if (!request.url.startsWith('/api/docs')) void reply.headers(API_ANSWER_HEADERS);
    // A preflight is answered before the 405 below: no route has OPTIONS.
    if (cors(request, reply)) return reply;
    checkQuery(request.url, queryLimits);
    // Answered before Fastify reads the body: a method it reads bodies for (QUERY, which must carry a
    // Content-Type) would otherwise fail there, as a 500, instead of answering 405 or 404.
    if (request.is404) return unrouted(request, reply);
  });
  shutdown.install(app);
  measureRequests(app);
  pauseRefusedConnections(app, afterAnswer);

  registerBodyParsers(app, deps.config.JSON_MAX_DEPTH);

  const pipeline = {
    authenticate,
    authThrottle: createFailedAuthThrottle({
      limit: deps.config.AUTH_FAILURE_LIMIT,
      windowSeconds: deps.config.AUTH_FAILURE_WINDOW_SECONDS,
    }),
    rateLimit: createRateLimiter({
      keyPerSecond: deps.config.RATE_LIMIT_PER_SECOND,
      orgPerSecond: deps.config.RATE_LIMIT_ORG_PER_SECOND,
      windowSeconds: deps.config.RATE_LIMIT_WINDOW_SECONDS,
      storeTimeoutMs: deps.config.RATE_LIMIT_STORE_TIMEOUT_MS,
      counter: deps.rateLimitCounter,
      fallbackReplicas: deps.config.RATE_LIMIT_FALLBACK_REPLICAS,
      log: (message, err) => app.log.warn({ err }, message),
    }),
    bulkheads,
    inflight,
    clients: deps.clients,
    cursors: new CursorCodec(deps.config.CURSOR_SECRET, deps.config.CURSOR_TTL_SECONDS, deps.config.CURSOR_PREVIOUS_SECRET),
    idempotency: deps.idempotency,
    exposeDbCommands: deps.config.EXPOSE_DB_COMMANDS,
    requestTimeoutMs: deps.config.REQUEST_TIMEOUT_MS,
  };
  for (const route of routes) {
    app.route({ method: route.method, url: toFastifyPath(route.path), handler: createHandler(route, pipeline) });
  }

  app.setNotFoundHandler(unrouted);
  app.setErrorHandler(handleError);

  const document = buildOpenApiDocument(routes, deps.config.PUBLIC_BASE_URL);
  app.get('/api/docs/openapi.json', async () => document);
  registerDocsPage(app);
  app.get('/healthz', async () => ({ status: 'ok' }));
  // Cached: every probe (and every caller of this public path) would otherwise check the dependencies again.
  const readiness = new TtlCache<boolean>(deps.config.READYZ_CACHE_MS, 1);
  app.get('/readyz', async (_request, reply) => {
    if (!shutdown.ready) return reply.code(503).send({ status: 'draining' });
    const ready = await readiness.get('ready', () => deps.ready().catch(() => false));
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready' });
  });
  return app;
}
