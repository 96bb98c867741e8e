import type { RecordRef } from '@crm/proto/gen/agents/v1/agents';
import { deleteAgent } from '../domain/agents';
import type { AgentsDeps } from '../domain/deps';
import { requireId } from './request';

export async function deleteAgentHandler(deps: AgentsDeps, request: RecordRef) {
  await deleteAgent(deps, requireId('organization', request.org_id), requireId('aiAgent', request.id));
  return {};
}
