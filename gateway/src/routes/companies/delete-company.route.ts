import { defineRoute } from '../../http/route';
import { companyIdParams } from './params';

export const deleteCompanyRoute = defineRoute({
  operationId: 'deleteCompany',
  method: 'DELETE',
  path: '/v1/companies/{id}',
  tag: 'Companies',
  summary: 'Delete a company',
  description: 'Refused with COMPANY_HAS_LINKS while live contacts or deals link the company (see #18 and #19). Emits company.deleted.',
  scope: 'write:companies',
  params: companyIdParams,
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND', 'COMPANY_HAS_LINKS'],
  handle: ({ params, principal, clients }) => clients.companies.deleteCompany({ org_id: principal.orgId, id: params.id }),
});
