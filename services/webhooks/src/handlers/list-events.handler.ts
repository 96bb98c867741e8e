import type { EventLogServiceServer } from '@crm/proto/gen/webhooks/v1/events';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { listEvents } from '../domain/event-log';
import { pageInfo, pageOf } from './request';

export const listEventsHandler: RpcHandler<EventLogServiceServer, 'listEvents', WebhookDeps> = async (deps, request) => {
  const filter = request.filter;
  const result = await listEvents(deps, request.org_id, {
    ...pageOf(request.page),
    types: filter?.types ?? [],
    created_after: filter?.created_after ?? null,
    created_before: filter?.created_before ?? null,
    object_id: filter?.object_id ?? null,
  });
  return { items: result.items, page: pageInfo(result) };
};
