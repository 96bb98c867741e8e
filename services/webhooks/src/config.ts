import { envPort, loadConfig, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';
import { parseAllowList } from './delivery/address-guard';
import { DEFAULT_SCHEDULE_MS } from './delivery/retry-schedule';
import { KEY_ID_RE } from './delivery/secret-box';
import { DEV_KEY, parseKey, parseOldKeys } from './delivery/secret-keyring';

const positiveInt = (fallback: number, min = 1) => z.coerce.number().int().min(min).default(fallback);

/** "0,300000,1800000": the wait before each attempt; its length is the number of attempts. */
const scheduleSchema = z
  .string()
  .default(DEFAULT_SCHEDULE_MS.join(','))
  .transform((value) => value.split(',').map((entry) => Number(entry.trim())))
  .refine(
    (waits) => waits.length >= 1 && waits.length <= 10 && waits.every((wait) => Number.isInteger(wait) && wait >= 0),
    'must be 1 to 10 comma-separated non-negative integers (ms)',
  );

const allowListSchema = z
  .string()
  .default('')
  .transform((value, context) => {
    try {
      return parseAllowList(value);
    } catch (error) {
      context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : 'invalid allow-list' });
      return z.NEVER;
    }
  });

/** Parses with `parse`, reporting its message as the variable's issue. */
const parsed = <T>(parse: (value: string) => T) =>
  z.string().transform((value, context) => {
    try {
      return parse(value);
    } catch (error) {
      context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : 'invalid' });
      return z.NEVER;
    }
  });

export const webhooksConfig = z
  .object({
    ...serviceEnv,
    WEBHOOKS_GRPC_HOST: z.string().default('127.0.0.1'),
    WEBHOOKS_GRPC_PORT: envPort(50054),
    WEBHOOKS_DB_NAME: z.string().min(1).default('webhooks'),
    /** Hosts, IPs or CIDRs that may be targets although private or loopback (and may use http): local stack and tests only. */
    WEBHOOK_ALLOWED_HOSTS: allowListSchema,
    WEBHOOK_RETRY_SCHEDULE_MS: scheduleSchema,
    /** Spec §6: the service waits 10 s for an answer. */
    WEBHOOK_TIMEOUT_MS: positiveInt(10_000, 100),
    /**
     * The attempt timeout of test sends and redeliveries (#88, #90), which hold a gateway request open: shorter
     * than the 10 s of event deliveries, so a slow receiver cannot hold the gateway's capacity.
     */
    WEBHOOK_MANUAL_TIMEOUT_MS: positiveInt(5_000, 100),
    /** Test sends and redeliveries one organization may have in flight per replica; beyond it, 429 RATE_LIMITED. */
    WEBHOOK_MANUAL_CONCURRENCY: positiveInt(4),
    /** Subscriptions one organization may have; beyond it, 422 WEBHOOK_LIMIT_EXCEEDED. */
    WEBHOOK_MAX_SUBSCRIPTIONS: positiveInt(25),
    /** The CRM service, which knows which API keys are revoked. */
    CRM_GRPC_URL: z.string().default('127.0.0.1:50051'),
    /** How often the subscriptions of revoked or expired API keys are looked for and paused. */
    WEBHOOK_KEY_CHECK_MS: positiveInt(30_000, 100),
    /** Consecutive failed attempts that pause a subscription (the spec says 5 and 10; we chose 10). */
    WEBHOOK_PAUSE_AFTER_FAILURES: positiveInt(10),
    WEBHOOK_CONSUMER_GROUP: z.string().min(1).default('webhooks'),
    /** Attempts in flight per replica (sockets waiting on receivers: cheap). */
    WEBHOOK_WORKER_CONCURRENCY: positiveInt(128),
    /** Attempts in flight to one subscription per replica: what a slow endpoint can hold at most. */
    WEBHOOK_ENDPOINT_CONCURRENCY: positiveInt(8),
    /** Attempts in flight for one organization per replica, over all its subscriptions. */
    WEBHOOK_ORG_CONCURRENCY: positiveInt(32),
    /**
     * An attempt unanswered after this long stops counting toward WEBHOOK_WORKER_CONCURRENCY and
     * WEBHOOK_ORG_CONCURRENCY (it keeps its subscription's slot): slow receivers hold sockets, not the others' capacity.
     */
    WEBHOOK_SLOW_ANSWER_MS: positiveInt(500, 10),
    /** Attempts in flight per replica, slow ones included: the most sockets it holds. */
    WEBHOOK_MAX_IN_FLIGHT: positiveInt(1_024),
    /** Deliveries queued in memory per subscription; beyond it they wait in the database, still due. */
    WEBHOOK_ENDPOINT_QUEUE: positiveInt(2_000),
    /** Deliveries queued in memory in all, per replica. */
    WEBHOOK_QUEUE: positiveInt(20_000),
    /**
     * Attempts sent but not yet stored, per replica; at this many no attempt starts until the store caught up. The
     * store records more slowly than a fast receiver answers: without a bound, the attempts waiting for it grew with
     * the backlog being drained (about 1 KB each).
     */
    WEBHOOK_MAX_UNRECORDED: positiveInt(50_000),
    /** How long a replica owns a due delivery; must outlast one attempt, or another replica could send it too. */
    WEBHOOK_LEASE_MS: positiveInt(60_000, 500),
    /**
     * The longest the worker sleeps with nothing due. It wakes by itself at the next due retry or expiring lease
     * (an indexed query) and when deliveries are stored; this only bounds how late it notices a retry that
     * another replica scheduled and then died.
     */
    WEBHOOK_IDLE_CHECK_MS: positiveInt(30_000, 10),
    /** Deliveries are deleted by a TTL index this long after they were created. */
    WEBHOOK_RETENTION_DAYS: positiveInt(15),
    /**
     * Consumed events are kept this long for GET /v1/events and replays (a TTL index deletes them after); 0 keeps
     * none (the event log is off: GET /v1/events answers an empty list, replays match nothing).
     */
    EVENTS_RETENTION_DAYS: positiveInt(30, 0),
    /** Default of rotate-secret's overlap_hours: how long the replaced secret keeps signing. */
    WEBHOOK_ROTATION_OVERLAP_HOURS: z.coerce.number().int().min(0).max(168).default(24),
    NODE_ENV: z.string().optional(),
    /** Encrypts signing secrets at rest (AES-256-GCM): base64 of 32 bytes. Required in production. */
    WEBHOOK_SECRETS_KEY: parsed((value) => parseKey(value, 'WEBHOOK_SECRETS_KEY')).optional(),
    /** Stored with every sealed secret; a new key needs a new id. */
    WEBHOOK_SECRETS_KEY_ID: z.string().regex(KEY_ID_RE, '1-32 of A-Z a-z 0-9 . _ -').default('k1'),
    /** "<id>:<base64>,…": keys of before a key rotation, which only open what they sealed. */
    WEBHOOK_SECRETS_OLD_KEYS: parsed(parseOldKeys).default(() => new Map<string, Buffer>()),
  })
  .refine((config) => config.NODE_ENV !== 'production' || (config.WEBHOOK_SECRETS_KEY && !config.WEBHOOK_SECRETS_KEY.equals(DEV_KEY)), {
    path: ['WEBHOOK_SECRETS_KEY'],
    message: 'is required with NODE_ENV=production (base64 of 32 random bytes), and must not be the public development key',
  })
  .refine((config) => config.WEBHOOK_LEASE_MS > config.WEBHOOK_TIMEOUT_MS, {
    path: ['WEBHOOK_LEASE_MS'],
    message: 'must be longer than WEBHOOK_TIMEOUT_MS, so a lease never ends while its attempt is still running',
  });

export type WebhooksConfig = z.infer<typeof webhooksConfig>;

export const loadWebhooksConfig = (env: NodeJS.ProcessEnv = process.env): WebhooksConfig => loadConfig(webhooksConfig, env);
