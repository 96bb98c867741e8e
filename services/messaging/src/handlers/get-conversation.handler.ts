import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import { getConversation } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import { requireId } from './request';

export const getConversationHandler: RpcHandler<MessagingServiceServer, 'getConversation', MessagingDeps> = async (deps, request) =>
  getConversation(deps, requireId('organization', request.org_id), requireId('conversation', request.id));
