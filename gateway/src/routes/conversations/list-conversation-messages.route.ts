import { isoDateTimeSchema } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { Message } from '../../schemas/messaging.schemas';
import { pageQuery } from '../../schemas/registry';
import { conversationIdParams } from './params';

const query = z.object({
  ...pageQuery,
  order: z.enum(['desc', 'asc']).default('desc'),
  created_after: isoDateTimeSchema.optional().describe('ISO 8601 lower bound (inclusive)'),
});

export const listConversationMessagesRoute = defineRoute({
  operationId: 'listConversationMessages',
  method: 'GET',
  path: '/v1/conversations/{id}/messages',
  tag: 'Conversations',
  summary: "List a conversation's messages",
  description: 'Newest first by default. meta.total counts the messages of the conversation.',
  scope: 'read:conversations',
  params: conversationIdParams,
  query,
  success: { status: 200, kind: 'list', schema: Message },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ params, query: q, principal, clients, page }) =>
    clients.messaging.listMessages({
      org_id: principal.orgId,
      conversation_id: params.id,
      page,
      order: q.order,
      created_after: q.created_after,
    }),
});
