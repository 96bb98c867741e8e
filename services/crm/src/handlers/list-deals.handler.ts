import type { DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { DEAL_SORTS } from '@crm/shared/schemas';
import { listDeals } from '../domain/deals';
import { pageInfo, requireId, sortedPageOf } from './request';

export const listDealsHandler: RpcHandler<DealServiceServer, 'listDeals', CrmDeps> = async (deps, request) => {
  const orgId = requireId('organization', request.org_id);
  const result = await listDeals(deps, orgId, {
    ...request.filter,
    contact_id: request.contact_id ? requireId('contact', request.contact_id) : null,
    company_id: request.company_id ? requireId('company', request.company_id) : null,
    ...sortedPageOf(request, DEAL_SORTS),
  });
  return { items: result.items, page: pageInfo(result) };
};
