import type { RecordRef } from '@crm/proto/gen/agents/v1/agents';
import type { AgentsDeps } from '../domain/deps';
import { getRun } from '../domain/runs';
import { requireId } from './request';

export const getRunHandler = (deps: AgentsDeps, request: RecordRef) =>
  getRun(deps, requireId('organization', request.org_id), requireId('agentRun', request.id));
