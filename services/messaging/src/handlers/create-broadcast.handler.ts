import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { createBroadcast } from '../domain/broadcasts/crud';
import { requireId } from './request';

export const createBroadcastHandler: RpcHandler<BroadcastServiceServer, 'createBroadcast', MessagingDeps> = async (deps, request) =>
  createBroadcast(deps, requireId('organization', request.org_id), request.plan ?? '', request.body ?? {});
