import { freePort } from '../../deploy/lib/ports';
import { resolve } from 'node:path';
import { createLogger } from '@crm/shared';
import mongoose from 'mongoose';
import { REPO_ROOT, startLocalStack } from '../../deploy/lib/local-stack';
import { startSystem, type RunningSystem } from '../../deploy/lib/system';
import { createApiKey, createOrganization } from '../../services/crm/src/domain/admin';
import { SCOPES } from '../../services/crm/src/domain/scopes';
import { createDeps } from '../../services/crm/src/wiring';

/**
 * A system of the benchmark's own (BENCH_OWN_SYSTEM=1): the services and the gateway on free ports under a fresh
 * namespace (own databases and topic) on the local stack, with an organization and a key. For when no healthy
 * `npm start` system is at hand; the numbers then include no other traffic.
 */
export async function startOwnSystem(): Promise<{ baseUrl: string; key: string; stop(): Promise<void> }> {
  const stack = await startLocalStack();
  const namespace = `bench${Date.now().toString(36)}`;
  const system: RunningSystem = await startSystem({
    stack,
    namespace,
    gatewayPort: await freePort(),
    crmPort: await freePort(),
    webhooksPort: await freePort(),
    logDir: resolve(REPO_ROOT, '.local/bench-logs', namespace),
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '0', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost,::1', WEBHOOK_CONSUMER_GROUP: `webhooks-${namespace}` },
  });
  const connection = await mongoose.createConnection(system.env.MONGODB_URI ?? '', { dbName: system.env.CRM_DB_NAME, retryWrites: false }).asPromise();
  const deps = createDeps(connection, createLogger('bench', 'silent'));
  const organization = await createOrganization(deps, { name: 'Webhook bench' });
  const key = await createApiKey(deps, organization.id, { name: 'bench', scopes: [...SCOPES] });
  return {
    baseUrl: system.baseUrl,
    key: key.key,
    async stop() {
      await connection.close();
      await system.stop();
      const mongo = mongoose.createConnection(system.env.MONGODB_URI ?? '', { retryWrites: false });
      await mongo.asPromise();
      for (const name of [system.env.CRM_DB_NAME, system.env.WEBHOOKS_DB_NAME, system.env.GATEWAY_DB_NAME]) if (name) await mongo.useDb(name).dropDatabase();
      await mongo.close();
    },
  };
}
