import { envBoolean, envPort, loadConfig, outboxEnv, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';

export const messagingConfig = z.object({
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
  PROVIDER_TOKEN: z.string().min(1).default('dev-provider-token'),
  /** Signs provider callbacks (HMAC-SHA256 of the raw body). */
  PROVIDER_CALLBACK_SECRET: z.string().min(8).default('dev-provider-callback-secret'),
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  /** How long an official number's free-text window lasts after the contact's last message (spec §8: 24 h). */
  MESSAGING_WINDOW_HOURS: z.coerce.number().positive().default(24),
  /** How long a provider's account answer (payment method) is trusted before asking again. */
  PROVIDER_ACCOUNT_CACHE_MS: z.coerce.number().int().min(0).default(30_000),
  /** Multiplies every broadcast send profile's rate (broadcasts/pacing.ts); 1 in production. */
  BROADCAST_PACE_MULTIPLIER: z.coerce.number().positive().max(1_000).default(1),
  /** A replica's hold on a broadcast lane or recipient build; another replica takes over this long after a crash. */
  BROADCAST_LEASE_MS: z.coerce.number().int().min(500).default(5_000),
  /** Broadcast lanes (one number of one broadcast) one replica sends at once. */
  BROADCAST_MAX_LANES: z.coerce.number().int().min(1).default(8),
  BROADCAST_SENDER_ENABLED: envBoolean(true),
});

export type MessagingConfig = z.infer<typeof messagingConfig>;

export const loadMessagingConfig = (env: NodeJS.ProcessEnv = process.env): MessagingConfig => loadConfig(messagingConfig, env);
