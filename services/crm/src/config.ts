import { commonEnv, envBoolean, envPort, loadConfig } from '@crm/shared';
import { z } from 'zod';

const schema = z.object({
  ...commonEnv,
  CRM_GRPC_HOST: z.string().default('127.0.0.1'),
  CRM_GRPC_PORT: envPort(50051),
  CRM_DB_NAME: z.string().min(1).default('crm'),
  /** Off only in fault tests that prove a committed write keeps its event while no relay runs. */
  OUTBOX_RELAY_ENABLED: envBoolean(true),
  /** Safety net only: writes wake the relay at once, expiring leases at their due time. */
  OUTBOX_IDLE_CHECK_MS: z.coerce.number().int().min(100).default(30_000),
  /** The consumer group that counts message events on contacts (messages_count, last_message_at). */
  CRM_CONSUMER_GROUP: z.string().min(1).default('crm-messages'),
  CRM_MESSAGE_CONSUMER_ENABLED: envBoolean(true),
});

export type CrmConfig = z.infer<typeof schema>;

export const loadCrmConfig = (env: NodeJS.ProcessEnv = process.env): CrmConfig => loadConfig(schema, env);
