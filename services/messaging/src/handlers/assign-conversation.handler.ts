import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import { assignConversation } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import { requireId } from './request';

export const assignConversationHandler: RpcHandler<MessagingServiceServer, 'assignConversation', MessagingDeps> = async (deps, request) =>
  assignConversation(deps, requireId('organization', request.org_id), requireId('conversation', request.id), request.body ?? {});
