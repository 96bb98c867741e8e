import { updateDealBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Deal } from '../../schemas/deal.schemas';
import { dealIdParams } from './params';

export const updateDealRoute = defineRoute({
  operationId: 'updateDeal',
  method: 'PATCH',
  path: '/v1/deals/{id}',
  tag: 'Deals',
  summary: 'Update a deal',
  description:
    'Send only the fields to change. contact_ids, tags and custom_fields replace the stored values ([] clears); company_id and assigned_to null unlink. stage, funnel and status change only through the action routes (UNKNOWN_FIELDS here). A request with an invalid reference changes nothing. Emits deal.updated, and deal.assigned when assigned_to changes.',
  scope: 'write:deals',
  params: dealIdParams,
  body: updateDealBody,
  success: { status: 200, kind: 'one', schema: Deal },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'INVALID_REFERENCE'],
  handle: ({ params, body, principal, clients }) => clients.deals.updateDeal({ org_id: principal.orgId, id: params.id, body }),
});
