import type { AgentServiceServer } from '@crm/proto/gen/agents/v1/agents';
import type { RpcHandler } from '@crm/shared';
import type { AgentsDeps } from '../domain/deps';
import { getRun } from '../domain/runs';
import { requireId } from './request';

export const getRunHandler: RpcHandler<AgentServiceServer, 'getRun', AgentsDeps> = async (deps, request) =>
  getRun(deps, requireId('organization', request.org_id), requireId('agentRun', request.id));
