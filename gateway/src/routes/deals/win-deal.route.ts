import { emptyActionBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Deal } from '../../schemas/deal.schemas';
import { dealIdParams } from './params';

export const winDealRoute = defineRoute({
  operationId: 'winDeal',
  method: 'POST',
  path: '/v1/deals/{id}/win',
  tag: 'Deals',
  summary: 'Mark a deal won',
  description: 'open → won; closed_at is set. Emits deal.updated with the previous status.',
  scope: 'write:deals',
  params: dealIdParams,
  body: emptyActionBody,
  success: { status: 200, kind: 'one', schema: Deal },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'INVALID_STATUS'],
  handle: ({ params, principal, clients }) => clients.deals.winDeal({ org_id: principal.orgId, id: params.id, body: {} }),
});
