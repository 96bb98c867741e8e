import type { AgentServiceServer } from '@crm/proto/gen/agents/v1/agents';
import type { RpcHandler } from '@crm/shared';
import { activateAgent } from '../domain/activation';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export const activateAgentHandler: RpcHandler<AgentServiceServer, 'activateAgent', AgentsDeps> = async (deps, request) =>
  activateAgent(deps, requireId('organization', request.org_id), request.plan ?? '', requireId('aiAgent', request.id));
