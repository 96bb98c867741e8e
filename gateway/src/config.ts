import { commonEnv, envPort, loadConfig } from '@crm/shared';
import { z } from 'zod';

const schema = z.object({
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  MONGODB_URI: commonEnv.MONGODB_URI,
  METRICS_HOST: commonEnv.METRICS_HOST,
  METRICS_PORT: commonEnv.METRICS_PORT,
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
  /** Requests this process serves at once; one more is refused 503 with Retry-After: 1, never queued. 0 disables. */
  MAX_INFLIGHT_REQUESTS: z.coerce.number().int().min(0).default(1_000),
  /** Per backing service: consecutive transport failures within the window that open its circuit breaker… */
  BREAKER_FAILURES: z.coerce.number().int().min(1).default(5),
  BREAKER_WINDOW_MS: z.coerce.number().int().min(1).default(10_000),
  /** …and how long it then refuses calls (503 + Retry-After) before letting one probe through. */
  BREAKER_COOLDOWN_MS: z.coerce.number().int().min(1).default(5_000),
  /** Signs cursors. Set the same value on every replica; a random one per process is used when absent. */
  CURSOR_SECRET: z.string().min(32).optional(),
  CURSOR_TTL_SECONDS: z.coerce.number().int().min(10).default(3600),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /** How long a verified key is trusted before asking the CRM again; revocation takes effect within it. */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().min(1).default(24),
  /** Requests per second allowed per API key (token bucket; the burst is twice the rate). 0 disables. */
  RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(100),
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** Diagnostics: answer every request's database commands (gateway + services) in `X-Db-Commands`. */
  EXPOSE_DB_COMMANDS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
});

export type GatewayConfig = z.infer<typeof schema>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig => loadConfig(schema, env);
