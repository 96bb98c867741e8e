import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { CustomFieldDefinition } from '../../schemas/account.schemas';
import { pageQuery } from '../../schemas/registry';

export const listCustomFieldsRoute = defineRoute({
  operationId: 'listCustomFields',
  method: 'GET',
  path: '/v1/custom-fields',
  tag: 'Account',
  summary: 'List custom field definitions',
  scope: 'read:custom_fields',
  query: z.object({ ...pageQuery, entity: z.enum(['contact', 'company', 'deal']).optional() }),
  success: { status: 200, kind: 'list', schema: CustomFieldDefinition },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ query, principal, clients, page }) =>
    clients.accounts.listCustomFields({ org_id: principal.orgId, page, entity: query.entity }),
});
