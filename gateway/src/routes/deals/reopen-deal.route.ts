import { emptyActionBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Deal } from '../../schemas/deal.schemas';
import { dealIdParams } from './params';

export const reopenDealRoute = defineRoute({
  operationId: 'reopenDeal',
  method: 'POST',
  path: '/v1/deals/{id}/reopen',
  tag: 'Deals',
  summary: 'Reopen a won or lost deal',
  description: 'won/lost → open; closed_at and lost_reason are cleared. Emits deal.updated with the previous status.',
  scope: 'write:deals',
  params: dealIdParams,
  body: emptyActionBody,
  success: { status: 200, kind: 'one', schema: Deal },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'INVALID_STATUS'],
  handle: ({ params, principal, clients }) => clients.deals.reopenDeal({ org_id: principal.orgId, id: params.id, body: {} }),
});
