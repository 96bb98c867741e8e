import type { CompanyServiceServer } from '@crm/proto/gen/crm/v1/companies';
import type { AsyncService } from '@crm/shared';
import { createCompany, deleteCompany, getCompany, listCompanies, updateCompany } from '../domain/companies';
import type { CrmDeps } from '../domain/deps';
import { pageOf, pageInfo, requireId } from './request';

/** gRPC CompanyService: maps messages to domain calls and back; the rules live in domain/companies.ts. */
export function companyHandlers(deps: CrmDeps): AsyncService<CompanyServiceServer> {
  return {
    listCompanies: async (request) => {
      const { limit, after } = pageOf(request.page);
      const assignedTo = request.filter?.assigned_to;
      const result = await listCompanies(deps, requireId('organization', request.org_id), {
        ...request.filter,
        assigned_to: assignedTo ? requireId('member', assignedTo) : null,
        limit,
        after,
      });
      return { items: result.items, page: pageInfo(result) };
    },
    getCompany: async (request) => getCompany(deps, request.org_id, requireId('company', request.id)),
    createCompany: async (request) => createCompany(deps, request.org_id, request.body ?? {}),
    updateCompany: async (request) => updateCompany(deps, request.org_id, requireId('company', request.id), request.body ?? {}),
    deleteCompany: async (request) => {
      await deleteCompany(deps, request.org_id, requireId('company', request.id));
      return {};
    },
  };
}
