import { DueScheduler } from '@crm/shared';
import { FairScheduler } from '@crm/shared/core';
import type { ServiceDefinition } from '@crm/shared/service';
import type { CrmConfig } from './config';
import type { CrmDeps } from './domain/deps';
import { mergeRecovery } from './domain/merge-completion';
import { taskAlarms } from './domain/task-alarms';
import { messageConsumer } from './events/message-consumer';
import { crmGrpcServices } from './server';
import { createDeps } from './wiring';

/** The CRM service as the shared bootstrap runs it (main.ts). */
export function crmService(config: CrmConfig): ServiceDefinition<CrmConfig, CrmDeps> {
  // A task written here with a due time wakes this replica's alarm scheduler (wiring.ts taskAlarmArmed).
  let alarms: DueScheduler | undefined;
  return {
    database: { name: config.CRM_DB_NAME, requires: ['transactions'] },
    deps: (storage, logger) =>
      createDeps(storage, logger, { overdueAfterMs: config.TASK_OVERDUE_AFTER_MS, taskAlarmArmed: (at) => alarms?.wake(at) }),
    // task.due and task.overdue: any replica may fire an alarm; each fires once.
    workers: ({ deps, logger }) => ({
      'task alarms': (alarms = new DueScheduler({
        name: 'task alarms',
        work: taskAlarms(deps),
        idleCheckMs: config.CRM_SCHEDULER_IDLE_MS,
        logger,
      })),
      // Contact merges a crash interrupted are completed (docs/contact-merge.md); any replica may, each once.
      'merge recovery': new DueScheduler({
        name: 'merge recovery',
        work: mergeRecovery(deps, config.CRM_MERGE_RECOVERY_AFTER_MS),
        idleCheckMs: config.CRM_SCHEDULER_IDLE_MS,
        logger,
      }),
    }),
    grpc: ({ deps, logger }) => ({
      host: config.CRM_GRPC_HOST,
      port: config.CRM_GRPC_PORT,
      services: crmGrpcServices(deps, logger, new FairScheduler(config.CRM_CALL_CONCURRENCY, config.CRM_CALL_CONCURRENCY_PER_ORG)),
    }),
    consumers: ({ deps, bus, logger }) =>
      config.CRM_MESSAGE_CONSUMER_ENABLED
        ? { 'message counts': messageConsumer(deps, bus, { groupId: config.CRM_CONSUMER_GROUP, topic: config.EVENTS_TOPIC, logger }) }
        : {},
  };
}
