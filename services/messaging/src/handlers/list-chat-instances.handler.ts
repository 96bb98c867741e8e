import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { listChatInstances } from '../domain/instances';
import { pageInfo, pageOf, requireId } from './request';

export const listChatInstancesHandler: RpcHandler<MessagingServiceServer, 'listChatInstances', MessagingDeps> = async (deps, request) => {
  const { limit, after } = pageOf(request.page);
  const result = await listChatInstances(deps, requireId('organization', request.org_id), {
    channel: request.channel ?? null,
    status: request.status ?? null,
    limit,
    after,
  });
  return { items: result.items, page: pageInfo(result) };
};
