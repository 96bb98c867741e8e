import { createCompanyBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Company } from '../../schemas/company.schemas';

export const createCompanyRoute = defineRoute({
  operationId: 'createCompany',
  method: 'POST',
  path: '/v1/companies',
  tag: 'Companies',
  summary: 'Create a company',
  description: 'assigned_to must be an active member. Emits company.created.',
  scope: 'write:companies',
  body: createCompanyBody,
  success: { status: 201, kind: 'one', schema: Company },
  errors: ['INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'INVALID_ID', 'INVALID_REFERENCE', 'DUPLICATE_COMPANY'],
  handle: ({ body, principal, clients }) => clients.companies.createCompany({ org_id: principal.orgId, id: '', body }),
});
