import { broadcastListQuery } from '@crm/shared/schemas';
import { z } from 'zod';
import { filterOf } from '../../http/list-query';
import { defineRoute } from '../../http/route';
import { Broadcast } from '../../schemas/broadcast.schemas';
import { pageQuery } from '../../schemas/registry';

export const listBroadcastsRoute = defineRoute({
  operationId: 'listBroadcasts',
  method: 'GET',
  path: '/v1/broadcasts',
  tag: 'Broadcasts',
  summary: 'List broadcasts',
  description:
    "Newest first. created_after is inclusive, created_before exclusive. meta.total counts the organization's broadcasts without filters.",
  scope: 'read:broadcasts',
  query: z.object({ ...pageQuery, ...broadcastListQuery }),
  success: { status: 200, kind: 'list', schema: Broadcast },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ query: q, principal, clients, page }) =>
    clients.broadcasts.listBroadcasts({
      org_id: principal.orgId,
      page,
      filter: filterOf(q),
    }),
});
