import { DEAL_STATUSES } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { Deal } from '../../schemas/deal.schemas';
import { pageQuery } from '../../schemas/registry';
import { companyIdParams } from './params';

export const listCompanyDealsRoute = defineRoute({
  operationId: 'listCompanyDeals',
  method: 'GET',
  path: '/v1/companies/{id}/deals',
  tag: 'Companies',
  summary: "List a company's deals",
  description: "All live deals linked to the company, newest first. meta.total counts the company's deals.",
  // A sub-collection needs the read scope of the records it returns (catalogue §1).
  scope: 'read:deals',
  params: companyIdParams,
  query: z.object({ ...pageQuery, status: z.enum(DEAL_STATUSES).optional() }),
  success: { status: 200, kind: 'list', schema: Deal },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ params, query, principal, clients, page }) =>
    clients.deals.listDeals({
      org_id: principal.orgId,
      page,
      sort: 'created_at',
      order: 'desc',
      filter: { status: query.status },
      company_id: params.id,
    }),
});
