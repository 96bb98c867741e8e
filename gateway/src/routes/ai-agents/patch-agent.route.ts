import { agentInputBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { AiAgent } from '../../schemas/agent.schemas';
import { AGENT_BODY_ERRORS, AGENT_INPUT_DESCRIPTION, agentIdParams } from './params';

export const patchAgentRoute = defineRoute({
  operationId: 'patchAiAgent',
  method: 'PATCH',
  path: '/v1/ai-agents/{id}',
  tag: 'AI agents',
  summary: 'Replace an AI agent (PATCH alias)',
  description: `Alias of PUT /v1/ai-agents/{id} (spec §4): the same full body and validation, a replacement and not a merge.\n\n${AGENT_INPUT_DESCRIPTION}`,
  scope: 'write:ai_agents',
  params: agentIdParams,
  body: agentInputBody,
  success: { status: 200, kind: 'one', schema: AiAgent },
  errors: ['NOT_FOUND', ...AGENT_BODY_ERRORS],
  handle: ({ params, body, principal, clients }) =>
    clients.agents.replaceAgent({ org_id: principal.orgId, id: params.id, body, plan: principal.plan }),
});
