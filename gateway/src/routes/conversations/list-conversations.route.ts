import { conversationListQuery } from '@crm/shared/schemas';
import { z } from 'zod';
import { sortedFilterOf } from '../../http/list-query';
import { defineRoute } from '../../http/route';
import { Conversation } from '../../schemas/messaging.schemas';
import { pageQuery } from '../../schemas/registry';

const query = z.object({
  ...pageQuery,
  ...conversationListQuery,
  sort: z.enum(['created_at', 'updated_at', 'last_message_at']).default('created_at'),
  order: z.enum(['desc', 'asc']).default('desc'),
});

export const listConversationsRoute = defineRoute({
  operationId: 'listConversations',
  method: 'GET',
  path: '/v1/conversations',
  tag: 'Conversations',
  summary: 'List conversations',
  description:
    "updated_after (inclusive) recovers missed events (spec §6 rule 8). meta.total counts the organization's conversations without filters.",
  scope: 'read:conversations',
  query,
  success: { status: 200, kind: 'list', schema: Conversation },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR', 'INVALID_ID'],
  handle: ({ query: q, principal, clients, page }) =>
    clients.messaging.listConversations({ org_id: principal.orgId, page, ...sortedFilterOf(q) }),
});
