import { envBoolean, envPort, loadConfig, outboxEnv, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';

export const agentsConfig = z.object({
  ...serviceEnv,
  // Runs carry agent.run.completed, agent.run.failed and agent.handoff.requested through the outbox.
  ...outboxEnv,
  AGENTS_GRPC_HOST: z.string().default('127.0.0.1'),
  /** 50053: crm 50051, messaging 50052, webhooks 50054. */
  AGENTS_GRPC_PORT: envPort(50053),
  AGENTS_DB_NAME: z.string().min(1).default('agents'),
  CRM_GRPC_URL: z.string().default('127.0.0.1:50051'),
  MESSAGING_GRPC_URL: z.string().default('127.0.0.1:50052'),
  /** The runner's consumer group on the events topic: replicas share its partitions. */
  AGENTS_CONSUMER_GROUP: z.string().min(1).default('agents-runner'),
  AGENTS_RUNNER_ENABLED: envBoolean(true),
  /** How long a replica holds a run it executes; another replica takes it over this long after a crash. */
  AGENTS_RUN_LEASE_MS: z.coerce.number().int().min(500).default(30_000),
  /** Safety net: the scheduler wakes at the next due run by itself; this bounds how late it sees another replica's. */
  AGENTS_IDLE_CHECK_MS: z.coerce.number().int().min(50).default(5_000),
  /** Conversations whose inbound messages one replica takes in at once (in order within each). */
  AGENTS_INTAKE_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(32),
  /** Runs one replica executes at once. */
  AGENTS_RUN_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(64),
  /** The messages of a conversation given to the model, newest last. */
  AGENTS_HISTORY_MESSAGES: z.coerce.number().int().min(1).max(200).default(20),
  AGENTS_HISTORY_CHARS: z.coerce.number().int().min(200).max(200_000).default(8_000),
  /** How long the organization's timezone (business hours) is trusted before asking the CRM again. */
  AGENTS_ORG_CACHE_MS: z.coerce.number().int().min(0).default(300_000),
  /**
   * The model provider (read by models/createModelProvider): `local` — deterministic rule-based answers, no
   * network (the default) — or `openai`, an OpenAI-compatible chat-completions API at OPENAI_BASE_URL.
   */
  MODEL_PROVIDER: z.enum(['local', 'openai']).default('local'),
  OPENAI_BASE_URL: z.string().optional(),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_MODEL: z.string().optional(),
  /**
   * The model names agents may use, comma-separated: an agent naming another answers 422 VALIDATION_ERROR, so a key
   * cannot spend the platform's model key on any model it likes. Empty: any name (set it in production).
   */
  AGENTS_ALLOWED_MODELS: z
    .string()
    .default('')
    .transform(
      (value) =>
        new Set(
          value
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean),
        ),
    ),
  /** Per attempt. */
  MODEL_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(15_000),
  MODEL_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /** The deadline of one model call, retries included. */
  MODEL_DEADLINE_MS: z.coerce.number().int().min(100).default(60_000),
  /** Price of the model for a run's usage.cost_cents (rounded up); 0 for the local provider. */
  MODEL_COST_CENTS_PER_MILLION_TOKENS: z.coerce.number().min(0).default(0),
});

export type AgentsConfig = z.infer<typeof agentsConfig>;

export const loadAgentsConfig = (env: NodeJS.ProcessEnv = process.env): AgentsConfig => loadConfig(agentsConfig, env);
