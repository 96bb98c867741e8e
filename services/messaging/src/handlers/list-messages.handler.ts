import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import { listMessages } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import { orderOf, pageInfo, pageOf, requireId } from './request';

export const listMessagesHandler: RpcHandler<MessagingServiceServer, 'listMessages', MessagingDeps> = async (deps, request) => {
  const { limit, after } = pageOf(request.page);
  const result = await listMessages(deps, requireId('organization', request.org_id), requireId('conversation', request.conversation_id), {
    order: orderOf(request.order),
    created_after: request.created_after ?? null,
    limit,
    after,
  });
  return { items: result.items, page: pageInfo(result) };
};
