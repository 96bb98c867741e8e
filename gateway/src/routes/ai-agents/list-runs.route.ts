import { runListQuery } from '@crm/shared/schemas';
import { z } from 'zod';
import { filterOf } from '../../http/list-query';
import { defineRoute } from '../../http/route';
import { AiAgentRun } from '../../schemas/agent.schemas';
import { pageQuery } from '../../schemas/registry';

export const listRunsRoute = defineRoute({
  operationId: 'listAiAgentRuns',
  method: 'GET',
  path: '/v1/ai-agents/runs',
  tag: 'AI agents',
  summary: 'List AI agent runs',
  description:
    'Newest first (started_at). started_after is inclusive. Unlike other lists, meta.total counts the runs that match the filters. Runs of deleted agents stay listed.',
  scope: 'read:ai_agents',
  query: z.object({ ...pageQuery, ...runListQuery }),
  success: { status: 200, kind: 'list', schema: AiAgentRun },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR', 'INVALID_ID'],
  handle: ({ query: q, principal, clients, page }) =>
    clients.agents.listRuns({
      org_id: principal.orgId,
      page,
      filter: filterOf(q),
    }),
});
