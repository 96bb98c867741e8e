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
  /** task.overdue fires this long after an open task's due time (task.due fires at the due time); default 1 h. */
  TASK_OVERDUE_AFTER_MS: z.coerce.number().int().min(0).default(3_600_000),
  /** Safety net of the task-alarm scheduler: how late a replica notices an alarm armed by another replica. */
  CRM_SCHEDULER_IDLE_MS: z.coerce.number().int().min(50).default(30_000),
  /** A contact merge interrupted this long after it claimed its contacts is completed by the recovery pass. */
  CRM_MERGE_RECOVERY_AFTER_MS: z.coerce.number().int().min(100).default(5_000),
  /**
   * Calls served at once by this process, shared fairly among organizations (fair-scheduler.ts): the rest wait in
   * their organization's turn, so one organization's queue of expensive lists does not delay another's. 0: no bound.
   */
  CRM_CALL_CONCURRENCY: z.coerce.number().int().min(0).default(16),
  /**
   * Of those places, how many one organization may hold while another organization is active (0: all of them). The
   * rest stay free for the others even while it has calls waiting: at most this many of its expensive queries per
   * process share the database's cores with another organization's; alone, it uses every place (docs/capacity.md,
   * "The database's share").
   */
  CRM_CALL_CONCURRENCY_PER_ORG: z.coerce.number().int().min(0).default(2),
});

export type CrmConfig = z.infer<typeof crmConfig>;

export const loadCrmConfig = (env: NodeJS.ProcessEnv = process.env): CrmConfig => loadConfig(crmConfig, env);

/** What the admin CLI reads: it opens the CRM's database directly, so it needs no service token nor ports. */
export const loadCrmDatabaseConfig = (env: NodeJS.ProcessEnv = process.env) =>
  loadConfig(z.object({ MONGODB_URI: crmConfig.shape.MONGODB_URI, CRM_DB_NAME: crmConfig.shape.CRM_DB_NAME }), env);
