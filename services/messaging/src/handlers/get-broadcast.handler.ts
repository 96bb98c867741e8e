import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { getBroadcast } from '../domain/broadcasts/crud';
import { requireId } from './request';

export const getBroadcastHandler: RpcHandler<BroadcastServiceServer, 'getBroadcast', MessagingDeps> = async (deps, request) =>
  getBroadcast(deps, requireId('organization', request.org_id), requireId('broadcast', request.id));
