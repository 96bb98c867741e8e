import { defineRoute } from '../../http/route';
import { AiAgent } from '../../schemas/agent.schemas';
import { agentIdParams } from './params';

export const deactivateAgentRoute = defineRoute({
  operationId: 'deactivateAiAgent',
  method: 'POST',
  path: '/v1/ai-agents/{id}/deactivate',
  tag: 'AI agents',
  summary: 'Deactivate an AI agent',
  description: 'Idempotent. The agent answers no new message; a run already waiting for its reply delay still answers.',
  scope: 'write:ai_agents',
  params: agentIdParams,
  success: { status: 200, kind: 'one', schema: AiAgent },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.agents.deactivateAgent({ org_id: principal.orgId, id: params.id }),
});
