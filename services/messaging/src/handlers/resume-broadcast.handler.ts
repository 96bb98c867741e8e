import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { resumeBroadcast } from '../domain/broadcasts/actions';
import { requireId } from './request';

export const resumeBroadcastHandler: RpcHandler<BroadcastServiceServer, 'resumeBroadcast', MessagingDeps> = async (deps, request) =>
  resumeBroadcast(deps, requireId('organization', request.org_id), requireId('broadcast', request.id), request.body ?? {});
