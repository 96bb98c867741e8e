import { defineRoute } from '../../http/route';
import { AiAgentRun } from '../../schemas/agent.schemas';
import { runIdParams } from './params';

export const getRunRoute = defineRoute({
  operationId: 'getAiAgentRun',
  method: 'GET',
  path: '/v1/ai-agents/runs/{runId}',
  tag: 'AI agents',
  summary: 'Read an AI agent run',
  scope: 'read:ai_agents',
  params: runIdParams,
  success: { status: 200, kind: 'one', schema: AiAgentRun },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.agents.getRun({ org_id: principal.orgId, id: params.runId }),
});
