import type { RecordRef } from '@crm/proto/gen/agents/v1/agents';
import { getAgent } from '../domain/agents';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export const getAgentHandler = (deps: AgentsDeps, request: RecordRef) =>
  getAgent(deps, requireId('organization', request.org_id), requireId('aiAgent', request.id));
