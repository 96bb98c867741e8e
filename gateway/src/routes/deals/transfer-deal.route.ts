import { transferDealBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Deal } from '../../schemas/deal.schemas';
import { dealIdParams } from './params';

export const transferDealRoute = defineRoute({
  operationId: 'transferDeal',
  method: 'POST',
  path: '/v1/deals/{id}/transfer',
  tag: 'Deals',
  summary: 'Transfer a deal to another funnel',
  description:
    "To another, non-archived funnel, at stage_id (a stage of that funnel) or its first stage. The status is kept. The deal's current funnel answers VALIDATION_ERROR. Emits deal.pipeline.transferred with the previous funnel and stage.",
  scope: 'write:deals',
  params: dealIdParams,
  body: transferDealBody,
  success: { status: 200, kind: 'one', schema: Deal },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'INVALID_REFERENCE'],
  handle: ({ params, body, principal, clients }) => clients.deals.transferDeal({ org_id: principal.orgId, id: params.id, body }),
});
