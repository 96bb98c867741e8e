import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { updateBroadcast } from '../domain/broadcasts/crud';
import { requireId } from './request';

export const updateBroadcastHandler: RpcHandler<BroadcastServiceServer, 'updateBroadcast', MessagingDeps> = async (deps, request) =>
  updateBroadcast(
    deps,
    requireId('organization', request.org_id),
    request.plan ?? '',
    requireId('broadcast', request.id),
    request.body ?? {},
  );
