import type { ListConversationsRequest } from '@crm/proto/gen/messaging/v1/messaging';
import { listConversations } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import type { ConversationSort } from '../repository/conversation.repository';
import { orderOf, pageInfo, pageOf, requireId } from './request';

const SORTS: readonly ConversationSort[] = ['created_at', 'updated_at', 'last_message_at'];

export async function listConversationsHandler(deps: MessagingDeps, request: ListConversationsRequest) {
  const { limit, after } = pageOf(request.page);
  const sort = SORTS.find((candidate) => candidate === request.sort) ?? 'created_at';
  const result = await listConversations(deps, requireId('organization', request.org_id), {
    ...request.filter,
    sort,
    order: orderOf(request.order),
    limit,
    after,
  });
  return { items: result.items, page: pageInfo(result) };
}
