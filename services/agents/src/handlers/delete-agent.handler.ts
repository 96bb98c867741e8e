import type { AgentServiceServer } from '@crm/proto/gen/agents/v1/agents';
import type { RpcHandler } from '@crm/shared';
import { deleteAgent } from '../domain/agents';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export const deleteAgentHandler: RpcHandler<AgentServiceServer, 'deleteAgent', AgentsDeps> = async (deps, request) => {
  await deleteAgent(deps, requireId('organization', request.org_id), requireId('aiAgent', request.id));
  return {};
};
