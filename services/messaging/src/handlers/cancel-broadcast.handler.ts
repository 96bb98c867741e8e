import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { cancelBroadcast } from '../domain/broadcasts/actions';
import { requireId } from './request';

export const cancelBroadcastHandler: RpcHandler<BroadcastServiceServer, 'cancelBroadcast', MessagingDeps> = async (deps, request) =>
  cancelBroadcast(deps, requireId('organization', request.org_id), requireId('broadcast', request.id));
