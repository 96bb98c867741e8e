import type { ListAgentsRequest } from '@crm/proto/gen/agents/v1/agents';
import { listAgents } from '../domain/agents';
import type { AgentsDeps } from '../domain/deps';
import { pageInfo, pageOf, requireId } from './request';

export async function listAgentsHandler(deps: AgentsDeps, request: ListAgentsRequest) {
  const result = await listAgents(deps, requireId('organization', request.org_id), {
    ...pageOf(request.page),
    type: request.type ?? null,
    is_active: request.is_active ?? null,
  });
  return { items: result.items, page: pageInfo(result) };
}
