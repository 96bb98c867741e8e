import type { AgentServiceServer } from '@crm/proto/gen/agents/v1/agents';
import type { RpcHandler } from '@crm/shared';
import { getAgent } from '../domain/agents';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export const getAgentHandler: RpcHandler<AgentServiceServer, 'getAgent', AgentsDeps> = async (deps, request) =>
  getAgent(deps, requireId('organization', request.org_id), requireId('aiAgent', request.id));
