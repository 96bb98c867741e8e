import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { listRecipients } from '../domain/broadcasts/crud';
import { pageInfo, pageOf, requireId } from './request';

export const listRecipientsHandler: RpcHandler<BroadcastServiceServer, 'listRecipients', MessagingDeps> = async (deps, request) => {
  const result = await listRecipients(deps, requireId('organization', request.org_id), requireId('broadcast', request.broadcast_id), {
    ...pageOf(request.page),
    status: request.status,
  });
  return { items: result.items, page: pageInfo(result) };
};
