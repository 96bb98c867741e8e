import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import { closeConversation } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import { requireId } from './request';

export const closeConversationHandler: RpcHandler<MessagingServiceServer, 'closeConversation', MessagingDeps> = async (deps, request) =>
  closeConversation(deps, requireId('organization', request.org_id), requireId('conversation', request.id));
