import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { getChatInstance } from '../domain/instances';
import { requireId } from './request';

export const getChatInstanceHandler: RpcHandler<MessagingServiceServer, 'getChatInstance', MessagingDeps> = async (deps, request) =>
  getChatInstance(deps, requireId('organization', request.org_id), requireId('chatInstance', request.id));
