import type { AgentServiceServer } from '@crm/proto/gen/agents/v1/agents';
import type { RpcHandler } from '@crm/shared';
import { createAgent } from '../domain/agents';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export const createAgentHandler: RpcHandler<AgentServiceServer, 'createAgent', AgentsDeps> = async (deps, request) =>
  createAgent(deps, requireId('organization', request.org_id), request.plan ?? '', request.body ?? {});
