import { recipientListQuery } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { BroadcastRecipient } from '../../schemas/broadcast.schemas';
import { pageQuery } from '../../schemas/registry';
import { broadcastIdParams } from './params';

export const listRecipientsRoute = defineRoute({
  operationId: 'listBroadcastRecipients',
  method: 'GET',
  path: '/v1/broadcasts/{id}/recipients',
  tag: 'Broadcasts',
  summary: "List a broadcast's recipients",
  description:
    'In send order (the audience order, oldest contact first), not by created_at. Empty until the broadcast is launched. meta.total counts all recipients of the broadcast, excluded ones included.',
  scope: 'read:broadcasts',
  params: broadcastIdParams,
  query: z.object({ ...pageQuery, ...recipientListQuery }),
  success: { status: 200, kind: 'list', schema: BroadcastRecipient },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ params, query: q, principal, clients, page }) =>
    clients.broadcasts.listRecipients({
      org_id: principal.orgId,
      broadcast_id: params.id,
      page,
      status: q.status,
    }),
});
