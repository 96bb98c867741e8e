import { FairScheduler } from '@crm/shared/core';
import type { ServiceDefinition } from '@crm/shared/service';
import type { CrmConfig } from './config';
import type { CrmDeps } from './domain/deps';
import { messageConsumer } from './events/message-consumer';
import { crmGrpcServices } from './server';
import { createDeps } from './wiring';

/** The CRM service as the shared bootstrap runs it (main.ts). */
export function crmService(config: CrmConfig): ServiceDefinition<CrmConfig, CrmDeps> {
  return {
    database: { name: config.CRM_DB_NAME },
    deps: (storage, logger) => createDeps(storage, logger),
    grpc: ({ deps, logger }) => ({
      host: config.CRM_GRPC_HOST,
      port: config.CRM_GRPC_PORT,
      services: crmGrpcServices(deps, logger, new FairScheduler(config.CRM_CALL_CONCURRENCY)),
    }),
    consumers: ({ deps, bus, logger }) =>
      config.CRM_MESSAGE_CONSUMER_ENABLED
        ? { 'message counts': messageConsumer(deps, bus, { groupId: config.CRM_CONSUMER_GROUP, topic: config.EVENTS_TOPIC, logger }) }
        : {},
  };
}
