import type { RecordRef } from '@crm/proto/gen/agents/v1/agents';
import { deactivateAgent } from '../domain/activation';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export const deactivateAgentHandler = (deps: AgentsDeps, request: RecordRef) =>
  deactivateAgent(deps, requireId('organization', request.org_id), requireId('aiAgent', request.id));
