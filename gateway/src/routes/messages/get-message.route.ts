import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { Message } from '../../schemas/messaging.schemas';

export const getMessageRoute = defineRoute({
  operationId: 'getMessage',
  method: 'GET',
  path: '/v1/messages/{id}',
  tag: 'Messages',
  summary: 'Read a message',
  description: 'Poll it for the delivery status of a send (sent → delivered → read, or failed with error.code).',
  scope: 'read:messages',
  params: z.object({ id: idOf('message') }),
  success: { status: 200, kind: 'one', schema: Message },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.messaging.getMessage({ org_id: principal.orgId, id: params.id }),
});
