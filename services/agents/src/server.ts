import { AgentServiceService, type AgentServiceServer } from '@crm/proto/gen/agents/v1/agents';
import { bindService, type AsyncService, type GrpcServiceBinding, type Logger } from '@crm/shared';
import type { AgentsDeps } from './domain/deps';
import { activateAgentHandler } from './handlers/activate-agent.handler';
import { createAgentHandler } from './handlers/create-agent.handler';
import { deactivateAgentHandler } from './handlers/deactivate-agent.handler';
import { deleteAgentHandler } from './handlers/delete-agent.handler';
import { getAgentHandler } from './handlers/get-agent.handler';
import { getRunHandler } from './handlers/get-run.handler';
import { listAgentsHandler } from './handlers/list-agents.handler';
import { listRunsHandler } from './handlers/list-runs.handler';
import { replaceAgentHandler } from './handlers/replace-agent.handler';

/** Binds agents.v1.AgentService (one RPC per file) to its handlers. */
export function agentsGrpcServices(deps: AgentsDeps, logger: Logger): GrpcServiceBinding[] {
  const handlers: AsyncService<AgentServiceServer> = {
    listAgents: (request) => listAgentsHandler(deps, request),
    createAgent: (request) => createAgentHandler(deps, request),
    getAgent: (request) => getAgentHandler(deps, request),
    replaceAgent: (request) => replaceAgentHandler(deps, request),
    deleteAgent: (request) => deleteAgentHandler(deps, request),
    activateAgent: (request) => activateAgentHandler(deps, request),
    deactivateAgent: (request) => deactivateAgentHandler(deps, request),
    listRuns: (request) => listRunsHandler(deps, request),
    getRun: (request) => getRunHandler(deps, request),
  };
  return [{ definition: AgentServiceService, implementation: bindService(handlers, logger) }];
}
