import { INSTANCE_STATUSES } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { ChatInstance } from '../../schemas/messaging.schemas';
import { pageQuery } from '../../schemas/registry';

const query = z.object({ ...pageQuery, channel: z.enum(['official', 'qrcode']).optional(), status: z.enum(INSTANCE_STATUSES).optional() });

export const listChatInstancesRoute = defineRoute({
  operationId: 'listChatInstances',
  method: 'GET',
  path: '/v1/chatapp-instances',
  tag: 'Chat instances',
  summary: 'List chatapp numbers',
  description: "Numbers are connected by operators; the API reads them. meta.total counts the organization's numbers without filters.",
  scope: 'read:chatapp_instances',
  query,
  success: { status: 200, kind: 'list', schema: ChatInstance },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ query: q, principal, clients, page }) =>
    clients.messaging.listChatInstances({
      org_id: principal.orgId,
      page,
      channel: q.channel,
      status: q.status,
    }),
});
