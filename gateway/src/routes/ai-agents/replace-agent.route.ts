import { agentInputBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { AiAgent } from '../../schemas/agent.schemas';
import { AGENT_BODY_ERRORS, AGENT_INPUT_DESCRIPTION, agentIdParams } from './params';

export const replaceAgentRoute = defineRoute({
  operationId: 'replaceAiAgent',
  method: 'PUT',
  path: '/v1/ai-agents/{id}',
  tag: 'AI agents',
  summary: 'Replace an AI agent',
  description: `A full replacement: every field of AiAgentInput is sent; omitted optional fields return to their defaults. is_active is unchanged.\n\n${AGENT_INPUT_DESCRIPTION}`,
  scope: 'write:ai_agents',
  params: agentIdParams,
  body: agentInputBody,
  success: { status: 200, kind: 'one', schema: AiAgent },
  errors: ['NOT_FOUND', ...AGENT_BODY_ERRORS],
  handle: ({ params, body, principal, clients }) =>
    clients.agents.replaceAgent({ org_id: principal.orgId, id: params.id, body, plan: principal.plan }),
});
