import { COMPANY_SIZES, idOf } from '@crm/shared/schemas';
import { z } from 'zod';
import { filterOf } from '../../http/list-query';
import { defineRoute } from '../../http/route';
import { Company } from '../../schemas/company.schemas';
import { pageQuery } from '../../schemas/registry';

const query = z.object({
  ...pageQuery,
  search: z.string().trim().min(1).max(200).optional().describe('case-insensitive match on name, e-mail or phone'),
  tag: z.string().min(1).max(50).optional().describe('exact tag'),
  sector: z.string().trim().min(1).max(200).optional().describe('partial, case-insensitive match on the sector'),
  size: z.enum(COMPANY_SIZES).optional(),
  assigned_to: idOf('member').optional().describe('member id'),
});

export const listCompaniesRoute = defineRoute({
  operationId: 'listCompanies',
  method: 'GET',
  path: '/v1/companies',
  tag: 'Companies',
  summary: 'List companies',
  description: "Newest first. meta.total counts the organization's companies without filters.",
  scope: 'read:companies',
  query,
  success: { status: 200, kind: 'list', schema: Company },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR', 'INVALID_ID'],
  handle: ({ query: q, principal, clients, page }) =>
    clients.companies.listCompanies({
      org_id: principal.orgId,
      page,
      filter: filterOf(q),
    }),
});
