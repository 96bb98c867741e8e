import { defineRoute } from '../../http/route';
import { Funnel } from '../../schemas/funnel.schemas';
import { funnelIdParams } from './params';

export const getFunnelRoute = defineRoute({
  operationId: 'getFunnel',
  method: 'GET',
  path: '/v1/funnels/{id}',
  tag: 'Funnels',
  summary: 'Read a funnel',
  description: 'Archived funnels are readable too. Funnels are archived, never deleted: DELETE answers 405.',
  scope: 'read:funnels',
  params: funnelIdParams,
  success: { status: 200, kind: 'one', schema: Funnel },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.funnels.getFunnel({ org_id: principal.orgId, id: params.id }),
});
