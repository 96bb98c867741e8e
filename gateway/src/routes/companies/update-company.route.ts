import { updateCompanyBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Company } from '../../schemas/company.schemas';
import { companyIdParams } from './params';

export const updateCompanyRoute = defineRoute({
  operationId: 'updateCompany',
  method: 'PATCH',
  path: '/v1/companies/{id}',
  tag: 'Companies',
  summary: 'Update a company',
  description:
    'Send only the fields to change; tags and custom_fields replace the stored values; assigned_to null unassigns. Emits company.updated with previous.',
  scope: 'write:companies',
  params: companyIdParams,
  body: updateCompanyBody,
  success: { status: 200, kind: 'one', schema: Company },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'INVALID_REFERENCE', 'DUPLICATE_COMPANY'],
  handle: ({ params, body, principal, clients }) => clients.companies.updateCompany({ org_id: principal.orgId, id: params.id, body }),
});
