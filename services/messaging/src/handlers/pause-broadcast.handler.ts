import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { pauseBroadcast } from '../domain/broadcasts/actions';
import { requireId } from './request';

export const pauseBroadcastHandler: RpcHandler<BroadcastServiceServer, 'pauseBroadcast', MessagingDeps> = async (deps, request) =>
  pauseBroadcast(deps, requireId('organization', request.org_id), requireId('broadcast', request.id));
