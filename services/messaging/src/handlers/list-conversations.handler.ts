import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import { listConversations, CONVERSATION_SORTS } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import { pageInfo, requireId, sortedPageOf } from './request';

export const listConversationsHandler: RpcHandler<MessagingServiceServer, 'listConversations', MessagingDeps> = async (deps, request) => {
  const result = await listConversations(deps, requireId('organization', request.org_id), {
    ...request.filter,
    ...sortedPageOf(request, CONVERSATION_SORTS),
  });
  return { items: result.items, page: pageInfo(result) };
};
