import { updateFunnelBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Funnel } from '../../schemas/funnel.schemas';
import { funnelIdParams } from './params';

export const updateFunnelRoute = defineRoute({
  operationId: 'updateFunnel',
  method: 'PATCH',
  path: '/v1/funnels/{id}',
  tag: 'Funnels',
  summary: 'Update a funnel',
  description:
    'name, position (the others shift), is_default (only true; the previous default loses it), is_archived (the default funnel cannot be archived: VALIDATION_ERROR). Stages are edited through /stages: stages here is UNKNOWN_FIELDS.',
  scope: 'write:funnels',
  params: funnelIdParams,
  body: updateFunnelBody,
  success: { status: 200, kind: 'one', schema: Funnel },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'PLAN_RESTRICTION'],
  handle: ({ params, body, principal, clients }) => clients.funnels.updateFunnel({ org_id: principal.orgId, id: params.id, body }),
});
