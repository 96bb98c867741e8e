import { moveDealBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Deal } from '../../schemas/deal.schemas';
import { dealIdParams } from './params';

export const moveDealRoute = defineRoute({
  operationId: 'moveDeal',
  method: 'POST',
  path: '/v1/deals/{id}/move',
  tag: 'Deals',
  summary: 'Move a deal to another stage',
  description:
    "To a stage of the deal's current funnel (another funnel: transfer). Needs an open deal. The current stage answers 200 with no event. Emits deal.stage.changed.",
  scope: 'write:deals',
  params: dealIdParams,
  body: moveDealBody,
  success: { status: 200, kind: 'one', schema: Deal },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'INVALID_REFERENCE', 'INVALID_STATUS'],
  handle: ({ params, body, principal, clients }) => clients.deals.moveDeal({ org_id: principal.orgId, id: params.id, body }),
});
