import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { deleteBroadcast } from '../domain/broadcasts/crud';
import { requireId } from './request';

export const deleteBroadcastHandler: RpcHandler<BroadcastServiceServer, 'deleteBroadcast', MessagingDeps> = async (deps, request) => {
  await deleteBroadcast(deps, requireId('organization', request.org_id), requireId('broadcast', request.id));
  return {};
};
