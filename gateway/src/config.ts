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
