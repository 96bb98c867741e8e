import { envBoolean, envPort, loadConfig, outboxEnv, serviceEnv } from '@crm/shared/config';
import { z } from 'zod';

export const crmConfig = z.object({
  ...serviceEnv,
  ...outboxEnv,
  CRM_GRPC_HOST: z.string().default('127.0.0.1'),
  CRM_GRPC_PORT: envPort(50051),
  CRM_DB_NAME: z.string().min(1).default('crm'),
  /** The consumer group that counts message events on contacts (messages_count, last_message_at). */
  CRM_CONSUMER_GROUP: z.string().min(1).default('crm-messages'),
  CRM_MESSAGE_CONSUMER_ENABLED: envBoolean(true),
});

export type CrmConfig = z.infer<typeof crmConfig>;

export const loadCrmConfig = (env: NodeJS.ProcessEnv = process.env): CrmConfig => loadConfig(crmConfig, env);
