import { updateStageBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Stage } from '../../schemas/funnel.schemas';
import { stageIdParams } from './params';

export const updateStageRoute = defineRoute({
  operationId: 'updateStage',
  method: 'PATCH',
  path: '/v1/funnels/{id}/stages/{stageId}',
  tag: 'Funnels',
  summary: 'Update a stage',
  description: 'name, color, probability, position (the stages in between shift).',
  scope: 'write:funnels',
  params: stageIdParams,
  body: updateStageBody,
  success: { status: 200, kind: 'one', schema: Stage },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: ({ params, body, principal, clients }) =>
    clients.funnels.updateStage({ org_id: principal.orgId, funnel_id: params.id, id: params.stageId, body }),
});
