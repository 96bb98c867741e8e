import { DEV_CALLBACK_SECRET, DEV_PROVIDER_TOKEN } from '@crm/shared';
import { envBoolean, envPort, loadConfig, outboxEnv, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';

export const messagingConfig = z
  .object({
    ...serviceEnv,
    ...outboxEnv,
    MESSAGING_GRPC_HOST: z.string().default('127.0.0.1'),
    MESSAGING_GRPC_PORT: envPort(50052),
    MESSAGING_DB_NAME: z.string().min(1).default('messaging'),
    /** The HTTP listener that receives provider callbacks (inbound messages, statuses, edits, connection changes). */
    MESSAGING_HTTP_HOST: z.string().default('127.0.0.1'),
    MESSAGING_HTTP_PORT: envPort(8082),
    CRM_GRPC_URL: z.string().default('127.0.0.1:50051'),
    /** Base URLs of the providers; locally all four are the provider simulator. */
    CLOUD_API_BASE_URL: z.string().url().default('http://127.0.0.1:8090'),
    QR_BRIDGE_BASE_URL: z.string().url().default('http://127.0.0.1:8090'),
    PHOTOAPP_BASE_URL: z.string().url().default('http://127.0.0.1:8090'),
    SOCIALMSG_BASE_URL: z.string().url().default('http://127.0.0.1:8090'),
    PROVIDER_TOKEN: z.string().min(1).default(DEV_PROVIDER_TOKEN),
    /** Signs provider callbacks (HMAC-SHA256 of "<timestamp>.<raw body>"). */
    PROVIDER_CALLBACK_SECRET: z.string().min(8).default(DEV_CALLBACK_SECRET),
    /** Replay window: how far a callback's signed X-Callback-Timestamp may be from now. */
    CALLBACK_TOLERANCE_SECONDS: z.coerce.number().int().min(1).default(300),
    /** The largest callback body; past it the listener stops reading and answers 413. */
    CALLBACK_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
    /** Slow callers: time to send the headers, and the whole request (408 and closed past them). */
    CALLBACK_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    CALLBACK_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    NODE_ENV: z.string().optional(),
    PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
    /** How long an official number's free-text window lasts after the contact's last message (spec §8: 24 h). */
    MESSAGING_WINDOW_HOURS: z.coerce.number().positive().default(24),
    /** Safety net of the window-expiry scheduler: how late a replica notices a window armed by another replica. */
    MESSAGING_SCHEDULER_IDLE_MS: z.coerce.number().int().min(50).default(30_000),
    /** How long a provider's account answer (payment method) is trusted before asking again. */
    PROVIDER_ACCOUNT_CACHE_MS: z.coerce.number().int().min(0).default(30_000),
    /** Multiplies every broadcast send profile's rate (broadcasts/pacing.ts); 1 in production. */
    BROADCAST_PACE_MULTIPLIER: z.coerce.number().positive().max(1_000).default(1),
    /** A replica's hold on a broadcast lane or recipient build; another replica takes over this long after a crash. */
    BROADCAST_LEASE_MS: z.coerce.number().int().min(500).default(5_000),
    /** Broadcast lanes (one number of one broadcast) one replica sends at once. */
    BROADCAST_MAX_LANES: z.coerce.number().int().min(1).default(8),
    BROADCAST_SENDER_ENABLED: envBoolean(true),
    /** The consumer group that moves conversations when contacts are merged (contact.merged). */
    MESSAGING_CONSUMER_GROUP: z.string().min(1).default('messaging-merges'),
  })
  .refine((config) => config.NODE_ENV !== 'production' || config.PROVIDER_CALLBACK_SECRET !== DEV_CALLBACK_SECRET, {
    path: ['PROVIDER_CALLBACK_SECRET'],
    message: 'must be set with NODE_ENV=production (the value agreed with the providers), never the built-in development secret',
  })
  .refine((config) => config.NODE_ENV !== 'production' || config.PROVIDER_TOKEN !== DEV_PROVIDER_TOKEN, {
    path: ['PROVIDER_TOKEN'],
    message: 'must be set with NODE_ENV=production, never the built-in development token',
  });

export type MessagingConfig = z.infer<typeof messagingConfig>;

export const loadMessagingConfig = (env: NodeJS.ProcessEnv = process.env): MessagingConfig => loadConfig(messagingConfig, env);

/** What the command-line tools read: they open messaging's database directly, so they need no service token. */
export const loadMessagingDatabaseConfig = (env: NodeJS.ProcessEnv = process.env) =>
  loadConfig(z.object({ MONGODB_URI: messagingConfig.shape.MONGODB_URI, MESSAGING_DB_NAME: messagingConfig.shape.MESSAGING_DB_NAME }), env);
