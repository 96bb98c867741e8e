import { agentInputBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { AiAgent } from '../../schemas/agent.schemas';
import { AGENT_BODY_ERRORS, AGENT_INPUT_DESCRIPTION } from './params';

export const createAgentRoute = defineRoute({
  operationId: 'createAiAgent',
  method: 'POST',
  path: '/v1/ai-agents',
  tag: 'AI agents',
  summary: 'Create an AI agent',
  description: `Created inactive (activate it with POST /v1/ai-agents/{id}/activate).\n\n${AGENT_INPUT_DESCRIPTION}`,
  scope: 'write:ai_agents',
  body: agentInputBody,
  success: { status: 201, kind: 'one', schema: AiAgent },
  errors: [...AGENT_BODY_ERRORS],
  handle: ({ body, principal, clients }) => clients.agents.createAgent({ org_id: principal.orgId, id: '', body, plan: principal.plan }),
});
