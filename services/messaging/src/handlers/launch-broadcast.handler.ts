import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { launchBroadcast } from '../domain/broadcasts/actions';
import { requireId } from './request';

export const launchBroadcastHandler: RpcHandler<BroadcastServiceServer, 'launchBroadcast', MessagingDeps> = async (deps, request) =>
  launchBroadcast(deps, requireId('organization', request.org_id), requireId('broadcast', request.id), request.body ?? {});
