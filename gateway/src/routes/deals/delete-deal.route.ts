import { defineRoute } from '../../http/route';
import { dealIdParams } from './params';

export const deleteDealRoute = defineRoute({
  operationId: 'deleteDeal',
  method: 'DELETE',
  path: '/v1/deals/{id}',
  tag: 'Deals',
  summary: 'Delete a deal',
  description: 'Soft delete: the deal leaves lists and funnel totals, the record is kept. Emits deal.deleted.',
  scope: 'write:deals',
  params: dealIdParams,
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.deals.deleteDeal({ org_id: principal.orgId, id: params.id }),
});
