import type { AgentServiceServer } from '@crm/proto/gen/agents/v1/agents';
import type { RpcHandler } from '@crm/shared';
import { replaceAgent } from '../domain/agents';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export const replaceAgentHandler: RpcHandler<AgentServiceServer, 'replaceAgent', AgentsDeps> = async (deps, request) =>
  replaceAgent(deps, requireId('organization', request.org_id), request.plan ?? '', requireId('aiAgent', request.id), request.body ?? {});
