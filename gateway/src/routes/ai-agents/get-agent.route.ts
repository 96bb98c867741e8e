import { defineRoute } from '../../http/route';
import { AiAgent } from '../../schemas/agent.schemas';
import { agentIdParams } from './params';

export const getAgentRoute = defineRoute({
  operationId: 'getAiAgent',
  method: 'GET',
  path: '/v1/ai-agents/{id}',
  tag: 'AI agents',
  summary: 'Read an AI agent',
  scope: 'read:ai_agents',
  params: agentIdParams,
  success: { status: 200, kind: 'one', schema: AiAgent },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.agents.getAgent({ org_id: principal.orgId, id: params.id }),
});
