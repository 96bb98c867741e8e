import { defineRoute } from '../../http/route';
import { Broadcast } from '../../schemas/broadcast.schemas';
import { broadcastIdParams } from './params';

export const getBroadcastRoute = defineRoute({
  operationId: 'getBroadcast',
  method: 'GET',
  path: '/v1/broadcasts/{id}',
  tag: 'Broadcasts',
  summary: 'Read a broadcast',
  description: 'Poll it for status and stats while it sends; stats follow the provider status callbacks.',
  scope: 'read:broadcasts',
  params: broadcastIdParams,
  success: { status: 200, kind: 'one', schema: Broadcast },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.broadcasts.getBroadcast({ org_id: principal.orgId, id: params.id }),
});
