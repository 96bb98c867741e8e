import { defineRoute } from '../../http/route';
import { Broadcast } from '../../schemas/broadcast.schemas';
import { broadcastIdParams } from './params';

export const cancelBroadcastRoute = defineRoute({
  operationId: 'cancelBroadcast',
  method: 'POST',
  path: '/v1/broadcasts/{id}/cancel',
  tag: 'Broadcasts',
  summary: 'Cancel a broadcast',
  description: 'scheduled, processing, sending or paused → cancelled, for good. Recipients not yet sent stay pending in the log.',
  scope: 'write:broadcasts',
  params: broadcastIdParams,
  success: { status: 200, kind: 'one', schema: Broadcast },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_STATUS'],
  handle: ({ params, principal, clients }) => clients.broadcasts.cancelBroadcast({ org_id: principal.orgId, id: params.id }),
});
