import { assignConversationBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Conversation } from '../../schemas/messaging.schemas';
import { conversationIdParams } from './params';

export const assignConversationRoute = defineRoute({
  operationId: 'assignConversation',
  method: 'POST',
  path: '/v1/conversations/{id}/assign',
  tag: 'Conversations',
  summary: 'Assign or unassign a conversation',
  description:
    'assigned_to: an active member id, or null to unassign. Emits conversation.assigned (also on unassign); the current assignee again changes nothing and emits nothing.',
  scope: 'write:conversations',
  params: conversationIdParams,
  body: assignConversationBody,
  success: { status: 200, kind: 'one', schema: Conversation },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR', 'INVALID_REFERENCE'],
  handle: ({ params, body, principal, clients }) => clients.messaging.assignConversation({ org_id: principal.orgId, id: params.id, body }),
});
