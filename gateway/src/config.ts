import { commonEnv, envPort, loadConfig, serviceIdentityEnv, telemetryEnv } from '@crm/shared/config';
import { z } from 'zod';

/**
 * Requests an organization has in service at once per gateway process, by plan (docs/capacity.md): tens, so that a
 * burst within the rate limits is served at once, not queued behind a handful of places.
 */
export const DEFAULT_TENANT_CONCURRENCY = 'free:16,starter:24,pro:32,enterprise:48';

export const gatewayConfig = z
  .object({
    NODE_ENV: z.string().optional(),
    LOG_LEVEL: commonEnv.LOG_LEVEL,
    MONGODB_URI: commonEnv.MONGODB_URI,
    METRICS_HOST: commonEnv.METRICS_HOST,
    METRICS_PORT: commonEnv.METRICS_PORT,
    ...telemetryEnv,
    ...serviceIdentityEnv,
    GATEWAY_DB_NAME: z.string().min(1).default('gateway'),
    HOST: z.string().default('127.0.0.1'),
    PORT: envPort(8080),
    CRM_GRPC_URL: z.string().default('127.0.0.1:50051'),
    WEBHOOKS_GRPC_URL: z.string().default('127.0.0.1:50054'),
    MESSAGING_GRPC_URL: z.string().default('127.0.0.1:50052'),
    AGENTS_GRPC_URL: z.string().default('127.0.0.1:50053'),
    /**
     * Each request's budget from its arrival: the gRPC calls made while serving it end by then (504 UPSTREAM_TIMEOUT).
     * Above the webhook service's 10 s attempt timeout, which POST /v1/webhooks/{id}/test waits for.
     */
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(12_000),
    /**
     * On SIGTERM, how long readiness fails while requests are still served, before the listener closes (graceful-shutdown.ts):
     * long enough for a load balancer to stop sending here (Kubernetes removes a terminating pod's endpoint within a few
     * seconds; a balancer that probes /readyz every 5 s notices within one period). The shutdown then waits for the
     * requests in flight, so the pod's termination grace period must exceed it + REQUEST_TIMEOUT_MS + 5 s (chart: 30 s).
     */
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).default(10_000),
    /** Requests this process serves at once; one more is refused 503 with Retry-After: 1, never queued. 0 disables. */
    MAX_INFLIGHT_REQUESTS: z.coerce.number().int().min(0).default(1_000),
    /**
     * Requests one organization may have open at this process (and requests whose key is not yet verified, together);
     * one more is refused 429 RATE_LIMITED (policy inflight) at once, so one organization cannot fill
     * MAX_INFLIGHT_REQUESTS. Default: half of MAX_INFLIGHT_REQUESTS. 0 disables.
     */
    MAX_INFLIGHT_REQUESTS_PER_ORG: z.coerce.number().int().min(0).optional(),
    /**
     * A connection answered this many times in a row with Retry-After (429/503) is not read again for half to all of
     * that Retry-After (at most REFUSED_CONNECTION_PAUSE_MS): a client that never backs off costs nothing meanwhile.
     * 0 disables.
     * One: a flood of 1,000 connections otherwise costs 5,000 refusals in its first second, which held every
     * other organization's answers for a second (docs/capacity.md).
     */
    REFUSED_CONNECTION_PAUSE_AFTER: z.coerce.number().int().min(0).default(1),
    REFUSED_CONNECTION_PAUSE_MS: z.coerce.number().int().min(0).default(1_000),
    /** Per backing service: consecutive transport failures within the window that open its circuit breaker… */
    BREAKER_FAILURES: z.coerce.number().int().min(1).default(5),
    BREAKER_WINDOW_MS: z.coerce.number().int().min(1).default(10_000),
    /** …and how long it then refuses calls (503 + Retry-After) before letting one probe through. */
    BREAKER_COOLDOWN_MS: z.coerce.number().int().min(1).default(5_000),
    /**
     * A call that timed out with less budget than this is not counted against its service: its request had spent
     * its time waiting in its organization's queue, or was near its own deadline. Default: half REQUEST_TIMEOUT_MS.
     */
    BREAKER_MIN_TIMEOUT_BUDGET_MS: z.coerce.number().int().min(0).optional(),
    /**
     * Per organization, by plan: requests served at once by this gateway process (plan:count, comma-separated; a plan
     * not named gets the smallest). 0 for a plan turns its bulkhead off. docs/capacity.md.
     */
    TENANT_CONCURRENCY: z.string().min(1).default(DEFAULT_TENANT_CONCURRENCY),
    /**
     * How much slower than its own norm (per operation) an organization's requests may get before its places shrink
     * below its plan's, down to 2; they grow back while it stays within. 0 keeps the plan's places fixed.
     * docs/capacity.md ("Adaptive concurrency").
     */
    TENANT_LATENCY_TOLERANCE: z.coerce.number().min(0).default(2),
    /**
     * Requests an organization may have waiting for a place; more answer 429 at once. Default: the organization's rate
     * quota per window (the key's when that is off; 256 when both are), so whatever the rate limits admit can wait.
     */
    TENANT_QUEUE_LIMIT: z.coerce.number().int().min(0).optional(),
    /**
     * Longest wait for a place, 0 for none of its own: the request's deadline bounds it. A request whose expected wait
     * passes either bound is refused 429 RATE_LIMITED at once; one still waiting at either is refused then. Never started.
     */
    TENANT_QUEUE_WAIT_MS: z.coerce.number().int().min(0).default(0),
    /** Requests with an unknown API key per client address and window, before its requests are refused 429. 0 disables. */
    AUTH_FAILURE_LIMIT: z.coerce.number().int().min(0).default(1_000),
    AUTH_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
    /** How long a /readyz answer is reused: probes from many sources cost one check of the dependencies per TTL. */
    READYZ_CACHE_MS: z.coerce.number().int().min(0).default(1_000),
    /**
     * Signs cursors: the same value on every replica, or a cursor one replica issued is refused by the next. Required
     * with NODE_ENV=production; elsewhere a random one per process (fine for a single local gateway).
     */
    CURSOR_SECRET: z.string().min(32).optional(),
    /** Rotation: the secret CURSOR_SECRET replaced; cursors it signed still verify. Drop it after CURSOR_TTL_SECONDS. */
    CURSOR_PREVIOUS_SECRET: z.string().min(32).optional(),
    CURSOR_TTL_SECONDS: z.coerce.number().int().min(10).default(3600),
    BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
    /** How long a verified key is trusted before asking the CRM again; revocation takes effect within it. */
    AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
    IDEMPOTENCY_TTL_HOURS: z.coerce.number().min(1).default(24),
    /** How long a refused request (4xx) is replayed under its key: shorter than a success. */
    IDEMPOTENCY_ERROR_TTL_MINUTES: z.coerce.number().min(1).default(60),
    /** Live refusals stored per organization; beyond, a refusal frees its key instead of being stored. */
    IDEMPOTENCY_MAX_ERRORS_PER_ORG: z.coerce.number().int().min(1).default(1_000),
    /** Requests per second per API key, counted across replicas (rate-limit.ts). 0 disables. */
    RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(100),
    /** Requests per second per organization, all its keys together, across replicas. 0 disables. */
    RATE_LIMIT_ORG_PER_SECOND: z.coerce.number().min(0).default(300),
    /** The counting window; its quota is the rate times the window. */
    RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(1),
    /** Longest wait for the shared counter before counting the request in this process alone (the fallback). */
    RATE_LIMIT_STORE_TIMEOUT_MS: z.coerce.number().int().min(1).default(1_000),
    /** While the shared counter fails, each replica admits the quota divided by this: set it to the replica count. */
    RATE_LIMIT_FALLBACK_REPLICAS: z.coerce.number().int().min(1).default(1),
    /** Browser origins allowed to call the API, comma-separated, or `*` (keys, not cookies: no credentials). */
    CORS_ALLOWED_ORIGINS: z.string().default('*'),
    /** Longest query string (after `?`) in characters, and most parameters; more answers 414 URI_TOO_LONG. */
    QUERY_MAX_LENGTH: z.coerce.number().int().min(256).default(4096),
    QUERY_MAX_PARAMS: z.coerce.number().int().min(1).default(50),
    /** Deepest JSON nesting a body may have; deeper answers 400 INVALID_JSON before it is parsed. */
    JSON_MAX_DEPTH: z.coerce.number().int().min(2).default(32),
    /** Node's limit on the request line and headers together; more answers 431 HEADERS_TOO_LARGE. */
    HTTP_MAX_HEADER_BYTES: z.coerce.number().int().min(1024).default(16_384),
    /** Slow clients: time to send all headers, and the whole request; past them the connection is answered 408 and closed. */
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    /** Idle keep-alive connections are closed after this; above a load balancer's idle timeout (60 s on most). */
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(72_000),
    /**
     * Connections the kernel completes and queues for the process before it accepts them. Past it the kernel drops
     * new connections' SYNs and clients retry after 1 s, then 3 s: a burst of connections (one client opening 1,000
     * at once) made every other client's new connection wait seconds at Node's default of 511. The kernel caps it at
     * net.core.somaxconn (4096 on Linux 5.4 and later).
     */
    HTTP_LISTEN_BACKLOG: z.coerce.number().int().min(1).default(4_096),
    /** Where clients reach this API (the OpenAPI document's server); default: the listener's own address. */
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    EXPOSE_DB_COMMANDS: commonEnv.EXPOSE_DB_COMMANDS,
  })
  .refine((config) => config.NODE_ENV !== 'production' || config.CURSOR_SECRET !== undefined, {
    path: ['CURSOR_SECRET'],
    message:
      'is required with NODE_ENV=production: every gateway replica must sign cursors with the same key (e.g. openssl rand -base64 48)',
  });

/** The document's server when PUBLIC_BASE_URL is not set (and for the generated client, which ignores it). */
export const LOCAL_BASE_URL = 'http://127.0.0.1:8080';

const withBaseUrl = gatewayConfig.transform((config) => {
  const host = ['0.0.0.0', '::', ''].includes(config.HOST) ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return {
    ...config,
    PUBLIC_BASE_URL: (config.PUBLIC_BASE_URL ?? `http://${host}:${config.PORT}`).replace(/\/+$/, ''),
    TENANT_QUEUE_LIMIT: config.TENANT_QUEUE_LIMIT ?? defaultTenantQueue(config),
    MAX_INFLIGHT_REQUESTS_PER_ORG: config.MAX_INFLIGHT_REQUESTS_PER_ORG ?? Math.ceil(config.MAX_INFLIGHT_REQUESTS / 2),
  };
});

/** What the rate limits admit of one organization in a window (its quota, else one key's), so all of it may wait. */
function defaultTenantQueue(config: {
  RATE_LIMIT_ORG_PER_SECOND: number;
  RATE_LIMIT_PER_SECOND: number;
  RATE_LIMIT_WINDOW_SECONDS: number;
}) {
  const perSecond = config.RATE_LIMIT_ORG_PER_SECOND || config.RATE_LIMIT_PER_SECOND;
  return perSecond > 0 ? Math.ceil(perSecond * config.RATE_LIMIT_WINDOW_SECONDS) : 256;
}

export type GatewayConfig = z.infer<typeof withBaseUrl>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig => loadConfig(withBaseUrl, env);
