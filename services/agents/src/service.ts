import type { ServiceDefinition } from '@crm/shared/service';
import type { AgentsConfig } from './config';
import type { AgentsDeps } from './domain/deps';
import { runnerIntake } from './runner/event-consumer';
import { RunScheduler } from './runner/scheduler';
import { agentsGrpcServices } from './server';
import { createDeps } from './wiring';

/** The agents service as the shared bootstrap runs it (main.ts); the runner only where AGENTS_RUNNER_ENABLED. */
export function agentsService(config: AgentsConfig): ServiceDefinition<AgentsConfig, AgentsDeps & { close(): void }> {
  // A run recorded here tells this replica's scheduler when it falls due (wiring.ts runScheduled).
  let scheduler: RunScheduler | undefined;
  const runner = config.AGENTS_RUNNER_ENABLED;
  return {
    database: { name: config.AGENTS_DB_NAME },
    deps: (storage, logger) => createDeps(storage, config, logger, (at) => scheduler?.wake(at)),
    grpc: ({ deps, logger }) => ({
      host: config.AGENTS_GRPC_HOST,
      port: config.AGENTS_GRPC_PORT,
      services: agentsGrpcServices(deps, logger),
    }),
    workers: ({ deps }) => {
      if (!runner) return {};
      scheduler = new RunScheduler({ deps, concurrency: config.AGENTS_RUN_CONCURRENCY, idleCheckMs: config.AGENTS_IDLE_CHECK_MS });
      return { 'run scheduler': scheduler };
    },
    consumers: ({ deps, bus }) =>
      runner
        ? {
            'runner intake': runnerIntake(deps, bus, {
              groupId: config.AGENTS_CONSUMER_GROUP,
              topic: config.EVENTS_TOPIC,
              concurrency: config.AGENTS_INTAKE_CONCURRENCY,
            }),
          }
        : {},
    close: (deps) => deps.close(),
  };
}
