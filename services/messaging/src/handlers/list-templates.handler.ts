import type { MessagingServiceServer } from '@crm/proto/gen/messaging/v1/messaging';
import type { RpcHandler } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { listTemplates } from '../domain/instances';
import { pageInfo, pageOf, requireId } from './request';

export const listTemplatesHandler: RpcHandler<MessagingServiceServer, 'listTemplates', MessagingDeps> = async (deps, request) => {
  const { limit, after } = pageOf(request.page);
  const result = await listTemplates(deps, requireId('organization', request.org_id), requireId('chatInstance', request.instance_id), {
    ...request.filter,
    limit,
    after,
  });
  return { items: result.items, page: pageInfo(result) };
};
