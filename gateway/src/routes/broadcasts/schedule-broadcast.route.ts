import { scheduleBroadcastBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Broadcast } from '../../schemas/broadcast.schemas';
import { broadcastIdParams, LAUNCH_ERRORS } from './params';

export const scheduleBroadcastRoute = defineRoute({
  operationId: 'scheduleBroadcast',
  method: 'POST',
  path: '/v1/broadcasts/{id}/schedule',
  tag: 'Broadcasts',
  summary: 'Schedule a broadcast',
  description:
    'draft or scheduled → scheduled. scheduledAt must lie in the future (within a year). The launch checks run now and again at scheduledAt; if they fail then, the broadcast becomes failed with the reason in error.',
  scope: 'write:broadcasts',
  params: broadcastIdParams,
  body: scheduleBroadcastBody,
  success: { status: 200, kind: 'one', schema: Broadcast },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', ...LAUNCH_ERRORS],
  handle: ({ params, body, principal, clients }) =>
    clients.broadcasts.scheduleBroadcast({ org_id: principal.orgId, id: params.id, body, plan: principal.plan }),
});
