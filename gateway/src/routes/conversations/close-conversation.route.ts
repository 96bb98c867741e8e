import { defineRoute } from '../../http/route';
import { Conversation } from '../../schemas/messaging.schemas';
import { conversationIdParams } from './params';

export const closeConversationRoute = defineRoute({
  operationId: 'closeConversation',
  method: 'POST',
  path: '/v1/conversations/{id}/close',
  tag: 'Conversations',
  summary: 'Close a conversation',
  description:
    'open → closed; sets closed_at. INVALID_STATUS when already closed. Emits conversation.closed. It opens again when a message arrives or is sent.',
  scope: 'write:conversations',
  params: conversationIdParams,
  success: { status: 200, kind: 'one', schema: Conversation },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_STATUS'],
  handle: ({ params, principal, clients }) => clients.messaging.closeConversation({ org_id: principal.orgId, id: params.id }),
});
