import type { WebhookServiceServer } from '@crm/proto/gen/webhooks/v1/webhooks';
import type { RpcHandler } from '@crm/shared';
import type { WebhookDeps } from '../domain/deps';
import { listEventTypes } from '../domain/event-types';
import { pageInfo, pageOf } from './request';

export const listEventTypesHandler: RpcHandler<WebhookServiceServer, 'listEventTypes', WebhookDeps> = async (deps, request) => {
  const result = listEventTypes(pageOf(request.page));
  return { items: result.items, page: pageInfo(result) };
};
