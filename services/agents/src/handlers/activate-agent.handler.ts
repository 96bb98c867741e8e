import type { WriteRequest } from '@crm/proto/gen/agents/v1/agents';
import { activateAgent } from '../domain/activation';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export const activateAgentHandler = (deps: AgentsDeps, request: WriteRequest) =>
  activateAgent(deps, requireId('organization', request.org_id), request.plan, requireId('aiAgent', request.id));
