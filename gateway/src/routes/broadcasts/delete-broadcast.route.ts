import { defineRoute } from '../../http/route';
import { broadcastIdParams } from './params';

export const deleteBroadcastRoute = defineRoute({
  operationId: 'deleteBroadcast',
  method: 'DELETE',
  path: '/v1/broadcasts/{id}',
  tag: 'Broadcasts',
  summary: 'Delete a broadcast',
  description: 'Refused with INVALID_STATUS while processing, sending or paused: cancel it first. Deletes its recipient log too.',
  scope: 'write:broadcasts',
  params: broadcastIdParams,
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_STATUS'],
  handle: async ({ params, principal, clients }) => {
    await clients.broadcasts.deleteBroadcast({ org_id: principal.orgId, id: params.id });
  },
});
