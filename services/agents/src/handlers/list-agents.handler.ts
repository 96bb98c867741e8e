import type { AgentServiceServer } from '@crm/proto/gen/agents/v1/agents';
import type { RpcHandler } from '@crm/shared';
import { listAgents } from '../domain/agents';
import type { AgentsDeps } from '../domain/deps';
import { pageInfo, pageOf, requireId } from './request';

export const listAgentsHandler: RpcHandler<AgentServiceServer, 'listAgents', AgentsDeps> = async (deps, request) => {
  const result = await listAgents(deps, requireId('organization', request.org_id), {
    ...pageOf(request.page),
    type: request.type ?? null,
    is_active: request.is_active ?? null,
  });
  return { items: result.items, page: pageInfo(result) };
};
