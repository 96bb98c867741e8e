import type { FunnelServiceServer } from '@crm/proto/gen/crm/v1/funnels';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { listFunnels } from '../domain/funnels';
import { pageInfo, pageOf, requireId } from './request';

export const listFunnelsHandler: RpcHandler<FunnelServiceServer, 'listFunnels', CrmDeps> = async (deps, request) => {
  const { limit, after } = pageOf(request.page);
  const result = await listFunnels(deps, requireId('organization', request.org_id), {
    includeArchived: request.include_archived,
    limit,
    after,
  });
  return { items: result.items, page: pageInfo(result) };
};
