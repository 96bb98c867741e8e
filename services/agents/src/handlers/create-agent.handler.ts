import type { WriteRequest } from '@crm/proto/gen/agents/v1/agents';
import { createAgent } from '../domain/agents';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export const createAgentHandler = (deps: AgentsDeps, request: WriteRequest) =>
  createAgent(deps, requireId('organization', request.org_id), request.plan, request.body ?? {});
