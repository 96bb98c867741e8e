import { defineRoute } from '../../http/route';
import { Deal } from '../../schemas/deal.schemas';
import { dealIdParams } from './params';

export const getDealRoute = defineRoute({
  operationId: 'getDeal',
  method: 'GET',
  path: '/v1/deals/{id}',
  tag: 'Deals',
  summary: 'Read a deal',
  scope: 'read:deals',
  params: dealIdParams,
  success: { status: 200, kind: 'one', schema: Deal },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.deals.getDeal({ org_id: principal.orgId, id: params.id }),
});
