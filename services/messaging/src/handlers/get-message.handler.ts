import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import { getMessage } from '../domain/conversations';
import type { MessagingDeps } from '../domain/deps';
import { requireId } from './request';

export const getMessageHandler: RpcHandler<MessagingServiceServer, 'getMessage', MessagingDeps> = async (deps, request) =>
  getMessage(deps, requireId('organization', request.org_id), requireId('message', request.id));
