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

/**
 * Why a process could not start, as it prints it: a bad environment in one line (`gateway: Invalid configuration:
 * CURSOR_SECRET: …`), anything else with its stack.
 */
export const startFailure = (name: string, error: unknown): unknown => (error instanceof ConfigError ? `${name}: ${error.message}` : error);

/** Environment booleans: "true"/"1" and "false"/"0". */
export const envBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1');

export const envPort = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** An optional variable; set to the empty string, it counts as unset (`OTEL_TRACES_FILE=` turns the file off). */
const optionalEnv = <S extends z.ZodType>(schema: S) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/**
 * How a process reaches Kafka (kafka/kafka-client.ts, the one client factory): the brokers and, where Kafka
 * authenticates its clients, this process's own SASL login (a user per service) and TLS. Without a mechanism the
 * client connects without logging in (a broker that requires a login then closes the connection).
 */
export const kafkaEnv = {
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:19092'),
  KAFKA_CLIENT_ID: optionalEnv(z.string()),
  /** scram-sha-512 (the local stack and the chart), scram-sha-256 or plain (only over TLS); any case. */
  KAFKA_SASL_MECHANISM: optionalEnv(
    z.preprocess((value) => (typeof value === 'string' ? value.toLowerCase() : value), z.enum(['scram-sha-512', 'scram-sha-256', 'plain'])),
  ),
  KAFKA_SASL_USERNAME: optionalEnv(z.string()),
  KAFKA_SASL_PASSWORD: optionalEnv(z.string()),
  /** TLS to the brokers; KAFKA_SSL_CA_FILE: a PEM file of the CA that signed them (otherwise Node's trusted CAs). */
  KAFKA_SSL: envBoolean(false),
  KAFKA_SSL_CA_FILE: optionalEnv(z.string()),
};

export type KafkaSettings = z.infer<z.ZodObject<typeof kafkaEnv>>;

/**
 * The checks no single variable can make: a mechanism needs a username and a password, and a login without a
 * mechanism would silently go unused. Throws a ConfigError naming the variables (runService calls it right after
 * loadConfig, the client factory on every client).
 */
export function checkKafkaSettings(settings: KafkaSettings): void {
  const problems: string[] = [];
  if (settings.KAFKA_SASL_MECHANISM) {
    if (!settings.KAFKA_SASL_USERNAME) problems.push('KAFKA_SASL_USERNAME: is required with KAFKA_SASL_MECHANISM');
    if (!settings.KAFKA_SASL_PASSWORD) problems.push('KAFKA_SASL_PASSWORD: is required with KAFKA_SASL_MECHANISM');
  } else if (settings.KAFKA_SASL_USERNAME || settings.KAFKA_SASL_PASSWORD) {
    problems.push(
      'KAFKA_SASL_MECHANISM: is required with KAFKA_SASL_USERNAME / KAFKA_SASL_PASSWORD (scram-sha-512, scram-sha-256 or plain)',
    );
  }
  if (settings.KAFKA_SASL_MECHANISM === 'plain' && !settings.KAFKA_SSL) {
    problems.push('KAFKA_SSL: must be true with KAFKA_SASL_MECHANISM=plain (the password would cross the network in clear)');
  }
  if (settings.KAFKA_SSL_CA_FILE && !settings.KAFKA_SSL) problems.push('KAFKA_SSL: must be true with KAFKA_SSL_CA_FILE');
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}

/** Variables every process shares. */
export const commonEnv = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MONGODB_URI: z.string().min(1).default('mongodb://127.0.0.1:27027/'),
  ...kafkaEnv,
  EVENTS_TOPIC: z.string().min(1).default('crm.domain-events.v1'),
  EVENTS_TOPIC_PARTITIONS: z.coerce.number().int().min(1).max(256).default(6),
  // Used only when a process creates the missing topic; min.insync.replicas follows (2 from a factor of 3).
  EVENTS_TOPIC_REPLICATION_FACTOR: z.coerce.number().int().min(1).max(16).default(1),
  // Prometheus metrics (OpenTelemetry's Prometheus exporter) on METRICS_HOST:METRICS_PORT/metrics; 0 turns them off.
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_PORT: envPort(9464),
  /**
   * Diagnostics: answer a request's database commands (gateway + services) in `X-Db-Commands` and its gRPC bytes in
   * `X-Grpc-Bytes`: `true` for every request, `on-request` only for requests that send `X-Db-Commands: 1`. Either
   * turns on the driver's command monitoring in the process (mongo/client.ts), which costs CPU on every command:
   * for tests and benchmarks, not production.
   */
  EXPOSE_DB_COMMANDS: z
    .enum(['true', 'false', 'on-request'])
    .default('false')
    .transform((value) => ({ true: 'all', false: 'off', 'on-request': 'asked' })[value] as 'all' | 'off' | 'asked'),
};

/** OpenTelemetry, read with the rest of a process's configuration (telemetry/start.ts). */
export const telemetryEnv = {
  /** Traces go over OTLP/HTTP to `<endpoint>/v1/traces` when set. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalEnv(z.string().url()),
  /** Spans are also written here as JSON lines (the tests read them). */
  OTEL_TRACES_FILE: optionalEnv(z.string()),
  /** The `service.name` of spans and metrics; the process's own name by default. */
  OTEL_SERVICE_NAME: optionalEnv(z.string()),
  OTEL_SDK_DISABLED: envBoolean(false),
  /**
   * The share of new traces recorded: ParentBased(TraceIdRatio(this)), so a trace an upstream caller sampled is
   * recorded whole in every process, and the rest cost only their propagated context.
   */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(0.1),
};

/**
 * The internal key every gRPC call's service token is signed with (grpc/service-identity.ts): the same on every
 * process that calls or serves gRPC, at least 32 characters; no default, so no process runs with a known key.
 * During a rotation the previous keys are still accepted (comma-separated).
 */
export const serviceIdentityEnv = {
  SERVICE_TOKEN_SECRET: z.string({ error: 'is required (the internal key of service tokens)' }).min(32),
  SERVICE_TOKEN_OLD_SECRETS: optionalEnv(z.string()),
};

/** What every gRPC service reads besides its own variables: the bootstrap's (service/run-service.ts). */
export const serviceEnv = {
  ...commonEnv,
  ...telemetryEnv,
  ...serviceIdentityEnv,
  /**
   * After SIGTERM: how long health answers NOT_SERVING while calls are still served, so that load balancers and
   * clients stop sending before the listener closes.
   */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
  /** Then how long calls in flight may take to finish before they are cancelled. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  /** The whole shutdown's bound: past it the process exits 1 (keep it below Kubernetes' terminationGracePeriodSeconds). */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(25_000),
};

/** The outbox relay of a service whose records carry events (crm, messaging). */
export const outboxEnv = {
  /** Off only in fault tests that prove a committed write keeps its event while no relay runs. */
  OUTBOX_RELAY_ENABLED: envBoolean(true),
  /** Safety net only: writes wake the relay at once, expiring leases at their due time. */
  OUTBOX_IDLE_CHECK_MS: z.coerce.number().int().min(100).default(30_000),
};

/** The configuration every service's schema extends (the outbox's part only where the service has an outbox). */
export type ServiceConfig = z.infer<z.ZodObject<typeof serviceEnv>> & Partial<z.infer<z.ZodObject<typeof outboxEnv>>>;
