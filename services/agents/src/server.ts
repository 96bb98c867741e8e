import { AgentServiceService, type AgentServiceServer } from '@crm/proto/gen/agents/v1/agents';
import { bindHandlers, type GrpcServiceBinding, type Logger } from '@crm/shared';
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

/** The agents service's gRPC service with its handlers, one RPC per file in handlers/. */
export function agentsGrpcServices(deps: AgentsDeps, logger: Logger): GrpcServiceBinding[] {
  const handlers = bindHandlers<AgentServiceServer, AgentsDeps>(
    deps,
    {
      listAgents: listAgentsHandler,
      createAgent: createAgentHandler,
      getAgent: getAgentHandler,
      replaceAgent: replaceAgentHandler,
      deleteAgent: deleteAgentHandler,
      activateAgent: activateAgentHandler,
      deactivateAgent: deactivateAgentHandler,
      listRuns: listRunsHandler,
      getRun: getRunHandler,
    },
    logger,
  );
  return [{ definition: AgentServiceService, implementation: handlers }];
}
