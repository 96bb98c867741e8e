import { createStageBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Stage } from '../../schemas/funnel.schemas';
import { funnelIdParams } from './params';

export const createStageRoute = defineRoute({
  operationId: 'createStage',
  method: 'POST',
  path: '/v1/funnels/{id}/stages',
  tag: 'Funnels',
  summary: 'Add a stage to a funnel',
  description: 'At position (1-based; default: last); the later stages shift. A funnel has at most 30 stages.',
  scope: 'write:funnels',
  params: funnelIdParams,
  body: createStageBody,
  success: { status: 201, kind: 'one', schema: Stage },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: ({ params, body, principal, clients }) =>
    clients.funnels.createStage({ org_id: principal.orgId, funnel_id: params.id, id: '', body }),
});
