import { defineRoute } from '../../http/route';
import { Broadcast } from '../../schemas/broadcast.schemas';
import { broadcastIdParams } from './params';

export const pauseBroadcastRoute = defineRoute({
  operationId: 'pauseBroadcast',
  method: 'POST',
  path: '/v1/broadcasts/{id}/pause',
  tag: 'Broadcasts',
  summary: 'Pause a broadcast',
  description:
    'processing or sending → paused. Sending stops within a second (a message already handed to the provider completes); pending recipients wait for resume.',
  scope: 'write:broadcasts',
  params: broadcastIdParams,
  success: { status: 200, kind: 'one', schema: Broadcast },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_STATUS'],
  handle: ({ params, principal, clients }) => clients.broadcasts.pauseBroadcast({ org_id: principal.orgId, id: params.id }),
});
