import { defineRoute } from '../../http/route';
import { Conversation } from '../../schemas/messaging.schemas';
import { conversationIdParams } from './params';

export const getConversationRoute = defineRoute({
  operationId: 'getConversation',
  method: 'GET',
  path: '/v1/conversations/{id}',
  tag: 'Conversations',
  summary: 'Read a conversation',
  scope: 'read:conversations',
  params: conversationIdParams,
  success: { status: 200, kind: 'one', schema: Conversation },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.messaging.getConversation({ org_id: principal.orgId, id: params.id }),
});
