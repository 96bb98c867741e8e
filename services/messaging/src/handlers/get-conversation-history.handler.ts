import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import { conversationHistory } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import { pageOf, requireId } from './request';

/** The limit as a page's: 1–100, 25 when absent. */
export const getConversationHistoryHandler: RpcHandler<MessagingServiceServer, 'getConversationHistory', MessagingDeps> = async (
  deps,
  request,
) =>
  conversationHistory(
    deps,
    requireId('organization', request.org_id),
    requireId('conversation', request.conversation_id),
    pageOf({ limit: request.limit, after: undefined }).limit,
  );
