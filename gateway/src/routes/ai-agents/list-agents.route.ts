import { agentListQuery } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { AiAgent } from '../../schemas/agent.schemas';
import { booleanQuery, pageQuery } from '../../schemas/registry';

export const listAgentsRoute = defineRoute({
  operationId: 'listAiAgents',
  method: 'GET',
  path: '/v1/ai-agents',
  tag: 'AI agents',
  summary: 'List AI agents',
  description: "Newest first. meta.total counts the organization's agents without filters.",
  scope: 'read:ai_agents',
  query: z.object({ ...pageQuery, ...agentListQuery, is_active: booleanQuery.optional() }),
  success: { status: 200, kind: 'list', schema: AiAgent },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ query: q, principal, clients, page }) =>
    clients.agents.listAgents({
      org_id: principal.orgId,
      page,
      type: q.type,
      is_active: q.is_active,
    }),
});
