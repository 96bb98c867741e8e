import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { scheduleBroadcast } from '../domain/broadcasts/actions';
import { requireId } from './request';

export const scheduleBroadcastHandler: RpcHandler<BroadcastServiceServer, 'scheduleBroadcast', MessagingDeps> = async (deps, request) =>
  scheduleBroadcast(deps, requireId('organization', request.org_id), requireId('broadcast', request.id), request.body ?? {});
