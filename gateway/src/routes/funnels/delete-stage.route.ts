import { defineRoute } from '../../http/route';
import { stageIdParams } from './params';

export const deleteStageRoute = defineRoute({
  operationId: 'deleteStage',
  method: 'DELETE',
  path: '/v1/funnels/{id}/stages/{stageId}',
  tag: 'Funnels',
  summary: 'Delete a stage',
  description:
    'Refused with STAGE_HAS_DEALS while live deals (of any status) sit in the stage, and with VALIDATION_ERROR for the last stage of a funnel.',
  scope: 'write:funnels',
  params: stageIdParams,
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND', 'STAGE_HAS_DEALS', 'VALIDATION_ERROR'],
  handle: ({ params, principal, clients }) =>
    clients.funnels.deleteStage({ org_id: principal.orgId, funnel_id: params.id, id: params.stageId }),
});
