import type { AgentServiceServer } from '@crm/proto/gen/agents/v1/agents';
import type { RpcHandler } from '@crm/shared';
import { deactivateAgent } from '../domain/activation';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export const deactivateAgentHandler: RpcHandler<AgentServiceServer, 'deactivateAgent', AgentsDeps> = async (deps, request) =>
  deactivateAgent(deps, requireId('organization', request.org_id), requireId('aiAgent', request.id));
