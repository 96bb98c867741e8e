import { defineRoute } from '../../http/route';
import { agentIdParams } from './params';

export const deleteAgentRoute = defineRoute({
  operationId: 'deleteAiAgent',
  method: 'DELETE',
  path: '/v1/ai-agents/{id}',
  tag: 'AI agents',
  summary: 'Delete an AI agent',
  description: 'The agent stops answering; a run already under way finishes, and past runs stay readable.',
  scope: 'write:ai_agents',
  params: agentIdParams,
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: async ({ params, principal, clients }) => {
    await clients.agents.deleteAgent({ org_id: principal.orgId, id: params.id });
  },
});
