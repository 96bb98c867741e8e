import { defineRoute } from '../../http/route';
import { Company } from '../../schemas/company.schemas';
import { companyIdParams } from './params';

export const getCompanyRoute = defineRoute({
  operationId: 'getCompany',
  method: 'GET',
  path: '/v1/companies/{id}',
  tag: 'Companies',
  summary: 'Read a company',
  scope: 'read:companies',
  params: companyIdParams,
  success: { status: 200, kind: 'one', schema: Company },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.companies.getCompany({ org_id: principal.orgId, id: params.id }),
});
