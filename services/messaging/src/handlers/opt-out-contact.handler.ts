import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { optOutContact } from '../domain/opt-outs';
import { requireId } from './request';

export const optOutContactHandler: RpcHandler<MessagingServiceServer, 'optOutContact', MessagingDeps> = async (deps, request) =>
  optOutContact(deps, requireId('organization', request.org_id), requireId('contact', request.id));
