import { AgentServiceService } from '@crm/proto/gen/agents/v1/agents';
import { createAsyncClient, newId, randomToken } from '@crm/shared';
import { join } from 'node:path';
import { freePort } from '../../deploy/lib/ports';
import { isolatedReplica, stopReplicas, type IsolatedReplica } from './isolated-replica';
import { testCaller, testSystem } from './system';

export type AgentsReplica = IsolatedReplica<ReturnType<typeof createAsyncClient<typeof AgentServiceService>>>;

/**
 * Agents replicas of their own — one database, one consumer group — next to the run's CRM, messaging and events
 * topic, so that killing them (or giving them another model provider) disturbs no other test. Their agents live in
 * their database only, so the run's own agents replicas never answer for them.
 */
export async function isolatedAgents(options: { replicas: number; name: string; env?: Record<string, string> }) {
  const { env, logDir } = testSystem();
  const suffix = randomToken(6);
  const shared: Record<string, string> = {
    ...(env as Record<string, string>),
    AGENTS_DB_NAME: `${env.AGENTS_DB_NAME}_${options.name}_${suffix}`,
    AGENTS_CONSUMER_GROUP: `agents-${options.name}-${suffix}`,
    OTEL_TRACES_FILE: '',
    ...options.env,
  };
  const replicas: AgentsReplica[] = await Promise.all(
    Array.from({ length: options.replicas }, async (_, index) => {
      const port = await freePort();
      const name = `agents-${options.name}-${index + 1}`;
      const logFile = join(logDir, `${name}-${suffix}.log`);
      const client = createAsyncClient(AgentServiceService, `127.0.0.1:${port}`, 'agents.v1.AgentService', { identity: testCaller() });
      const replica: AgentsReplica = isolatedReplica({
        name,
        entry: 'services/agents/src/main.ts',
        env: { ...shared, AGENTS_GRPC_PORT: String(port) },
        logFile,
        client,
        ready: async (c) =>
          Array.isArray(
            (await c.listAgents({ org_id: newId('organization'), page: { limit: 1, after: undefined } }, { timeoutMs: 1_000 })).items,
          ),
      });
      return replica;
    }),
  );
  return {
    replicas,
    stop: () => stopReplicas(replicas, shared.MONGODB_URI ?? '', shared.AGENTS_DB_NAME ?? ''),
  };
}
