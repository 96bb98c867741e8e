import { defineRoute } from '../../http/route';
import { ChatInstance } from '../../schemas/messaging.schemas';
import { chatInstanceIdParams } from './params';

export const getChatInstanceRoute = defineRoute({
  operationId: 'getChatInstance',
  method: 'GET',
  path: '/v1/chatapp-instances/{id}',
  tag: 'Chat instances',
  summary: 'Read a chatapp number',
  scope: 'read:chatapp_instances',
  params: chatInstanceIdParams,
  success: { status: 200, kind: 'one', schema: ChatInstance },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.messaging.getChatInstance({ org_id: principal.orgId, id: params.id }),
});
