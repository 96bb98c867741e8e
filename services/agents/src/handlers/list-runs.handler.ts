import type { AgentServiceServer } from '@crm/proto/gen/agents/v1/agents';
import type { RpcHandler } from '@crm/shared';
import type { AgentsDeps } from '../domain/deps';
import { listRuns } from '../domain/runs';
import { pageInfo, pageOf, requireId } from './request';

export const listRunsHandler: RpcHandler<AgentServiceServer, 'listRuns', AgentsDeps> = async (deps, request) => {
  const filter = request.filter;
  const result = await listRuns(deps, requireId('organization', request.org_id), {
    ...pageOf(request.page),
    agent_id: filter?.agent_id ?? null,
    conversation_id: filter?.conversation_id ?? null,
    status: filter?.status ?? null,
    started_after: filter?.started_after ?? null,
  });
  return { items: result.items, page: pageInfo(result) };
};
