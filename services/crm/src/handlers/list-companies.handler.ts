import type { CompanyServiceServer } from '@crm/proto/gen/crm/v1/companies';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { listCompanies } from '../domain/companies';
import { pageOf, pageInfo, requireId } from './request';

export const listCompaniesHandler: RpcHandler<CompanyServiceServer, 'listCompanies', CrmDeps> = async (deps, request) => {
  const { limit, after } = pageOf(request.page);
  const assignedTo = request.filter?.assigned_to;
  const result = await listCompanies(deps, requireId('organization', request.org_id), {
    ...request.filter,
    assigned_to: assignedTo ? requireId('member', assignedTo) : null,
    limit,
    after,
  });
  return { items: result.items, page: pageInfo(result) };
};
