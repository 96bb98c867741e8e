import type { WriteRequest } from '@crm/proto/gen/agents/v1/agents';
import { replaceAgent } from '../domain/agents';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export const replaceAgentHandler = (deps: AgentsDeps, request: WriteRequest) =>
  replaceAgent(deps, requireId('organization', request.org_id), request.plan, requireId('aiAgent', request.id), request.body ?? {});
