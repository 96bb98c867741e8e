import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { listBroadcasts } from '../domain/broadcasts/crud';
import { pageInfo, pageOf, requireId } from './request';

export const listBroadcastsHandler: RpcHandler<BroadcastServiceServer, 'listBroadcasts', MessagingDeps> = async (deps, request) => {
  const result = await listBroadcasts(deps, requireId('organization', request.org_id), { ...pageOf(request.page), ...request.filter });
  return { items: result.items, page: pageInfo(result) };
};
