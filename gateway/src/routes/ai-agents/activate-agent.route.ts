import { defineRoute } from '../../http/route';
import { AiAgent } from '../../schemas/agent.schemas';
import { agentIdParams } from './params';

export const activateAgentRoute = defineRoute({
  operationId: 'activateAiAgent',
  method: 'POST',
  path: '/v1/ai-agents/{id}/activate',
  tag: 'AI agents',
  summary: 'Activate an AI agent',
  description:
    'Idempotent. Checks the configuration again (its numbers and handoff assignee still exist: INVALID_REFERENCE) and the plan: free has no agents, starter 1 active agent, pro 10, enterprise no limit (PLAN_RESTRICTION).',
  scope: 'write:ai_agents',
  params: agentIdParams,
  success: { status: 200, kind: 'one', schema: AiAgent },
  errors: ['INVALID_ID', 'NOT_FOUND', 'PLAN_RESTRICTION', 'INVALID_REFERENCE'],
  handle: ({ params, principal, clients }) =>
    clients.agents.activateAgent({ org_id: principal.orgId, id: params.id, body: undefined, plan: principal.plan }),
});
