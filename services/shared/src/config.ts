import { z } from 'zod';

/** A bad environment: its message is one line naming every bad variable, fit to print as the reason a process exits. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Reads process.env once through a zod object and fails fast listing every bad variable,
 * so a misconfigured pod dies at start with one readable line instead of at first use.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}

/** Environment booleans: "true"/"1" and "false"/"0". */
export const envBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1');

export const envPort = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** Variables every process shares. */
export const commonEnv = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MONGODB_URI: z.string().min(1).default('mongodb://127.0.0.1:27027/'),
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:19092'),
  KAFKA_CLIENT_ID: z.string().optional(),
  EVENTS_TOPIC: z.string().min(1).default('crm.domain-events.v1'),
  EVENTS_TOPIC_PARTITIONS: z.coerce.number().int().min(1).max(256).default(6),
  // Used only when a process creates the missing topic; min.insync.replicas follows (2 from a factor of 3).
  EVENTS_TOPIC_REPLICATION_FACTOR: z.coerce.number().int().min(1).max(16).default(1),
  // Prometheus metrics (OpenTelemetry's Prometheus exporter) on METRICS_HOST:METRICS_PORT/metrics; 0 turns them off.
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_PORT: envPort(9464),
};
