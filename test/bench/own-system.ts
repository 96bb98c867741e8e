import { resolve } from 'node:path';
import { createLogger, createStorage } from '@crm/shared';
import mongoose from 'mongoose';
import { freePort } from '../../deploy/lib/ports';
import { REPO_ROOT, startLocalStack, type StackEnv } from '../../deploy/lib/local-stack';
import { generateSecrets } from '../../deploy/lib/secrets';
import { startSystem, type RunningSystem, type ServiceName, type SystemOptions } from '../../deploy/lib/system';
import { createApiKey, createOrganization } from '../../services/crm/src/domain/admin';
import { SCOPES } from '../../services/crm/src/domain/scopes';
import type { ContactRepository } from '../../services/crm/src/repository/contact.repository';
import { createDeps } from '../../services/crm/src/wiring';
import { dropNamespace } from '../support/namespace';

/**
 * With BENCH_CPU_PROFILE=<dir>, the named processes write a CPU profile there when they stop (cpu-profile.mjs);
 * the `envFor` of startOwnSystem. Undefined when the variable is not set.
 */
export function cpuProfileEnv(services: ServiceName[], dir = process.env.BENCH_CPU_PROFILE): SystemOptions['envFor'] {
  if (!dir) return undefined;
  const preload = resolve(__dirname, 'cpu-profile.mjs');
  return Object.fromEntries(
    services.map((name) => [name, { NODE_OPTIONS: `--import ${preload}`, CPU_PROFILE_DIR: resolve(dir), PROFILE_NAME: name }]),
  );
}

export interface OwnSystem {
  stack: StackEnv;
  system: RunningSystem;
  namespace: string;
  logDir: string;
  orgId: string;
  key: string;
  /** The CRM database of this system, for seeding with the driver. */
  crmDb: mongoose.mongo.Db;
  /** The CRM's contact repository on that database, for importing contacts in bulk (seed.ts). */
  contacts: ContactRepository;
  /** Another organization with an all-scopes key (tenants side by side). */
  newOrg(name: string): Promise<{ orgId: string; key: string }>;
  stop(): Promise<void>;
}

const ports = async (count: number): Promise<number[]> => {
  const list: number[] = [];
  for (let i = 0; i < count; i++) list.push(await freePort());
  return list;
};

/**
 * A system of the benchmark's own: the CRM and webhook replicas and the gateway on free ports under a fresh
 * namespace (own databases and topic) on the local stack, with an organization and a key made by the CRM's own
 * domain functions. The numbers then include no other tenant's data.
 */
export async function startOwnSystem(options: {
  crmReplicas: number;
  webhooksReplicas: number;
  /** Several gateway replicas on these ports (the scale-out run) instead of one. */
  gatewayPorts?: number[];
  /** Extra environment per service (e.g. NODE_OPTIONS for a CPU profile). */
  envFor?: SystemOptions['envFor'];
  /** Every process writes its spans to `<logDir>/<process>.jsonl`. */
  traces?: boolean;
  /**
   * The gateway answers a request's database commands and gRPC bytes when the request asks (EXPOSE_DB_COMMANDS
   * `on-request`): the route-cost probes of `npm run bench`, on a system of their own. Off otherwise, as in
   * production — it turns on the driver's command monitoring in every process, which costs CPU on every command.
   */
  diagnostics?: boolean;
}): Promise<OwnSystem> {
  const stack = await startLocalStack();
  const namespace = `bench${Date.now().toString(36)}`;
  const logDir = resolve(REPO_ROOT, '.local/bench-logs', namespace);
  const system = await startSystem({
    stack,
    namespace,
    secrets: generateSecrets(),
    gatewayPort: options.gatewayPorts?.[0] ?? (await freePort()),
    ...(options.gatewayPorts ? { gatewayPorts: options.gatewayPorts } : {}),
    crmPorts: await ports(options.crmReplicas),
    webhooksPorts: await ports(options.webhooksReplicas),
    messagingPorts: [{ grpc: await freePort(), http: await freePort() }],
    agentsPorts: [await freePort()],
    simulatorPort: await freePort(),
    logDir,
    env: {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '0',
      RATE_LIMIT_ORG_PER_SECOND: '0',
      // Bulkheads and the failed-auth throttle off, as the limits: the capacity scenario turns them on itself.
      TENANT_CONCURRENCY: '0',
      AUTH_FAILURE_LIMIT: '0',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost,::1',
      WEBHOOK_CONSUMER_GROUP: `webhooks-${namespace}`,
      // BENCH_WEBHOOK_PAUSE_AFTER_FAILURES: a high value keeps the isolation run's failing subscriptions failing.
      WEBHOOK_PAUSE_AFTER_FAILURES: process.env.BENCH_WEBHOOK_PAUSE_AFTER_FAILURES ?? '10',
      ...(options.diagnostics ? { EXPOSE_DB_COMMANDS: 'on-request' } : {}),
    },
    envFor: options.envFor,
    tracesDir: options.traces ? logDir : undefined,
  });
  const connection = await mongoose.createConnection(system.env.MONGODB_URI ?? '', { dbName: system.env.CRM_DB_NAME }).asPromise();
  const deps = createDeps(createStorage(connection), createLogger('bench', 'silent'));
  const newOrg = async (name: string) => {
    const organization = await createOrganization(deps, { name });
    const created = await createApiKey(deps, organization.id, { name: 'bench', scopes: [...SCOPES] });
    return { orgId: organization.id, key: created.key };
  };
  const { orgId, key } = await newOrg('Benchmark');
  const crmDb = connection.db;
  if (!crmDb) throw new Error('the CRM database connection has no db handle');
  return {
    stack,
    system,
    namespace,
    logDir,
    orgId,
    key,
    crmDb,
    contacts: deps.contacts,
    newOrg,
    async stop() {
      await connection.close();
      // The gateway first (nothing calls the services after it), then every replica at once: one by one, each
      // draining its consumer, took most of a minute.
      const gateway = system.processes.find((process) => process.name === 'gateway');
      await gateway?.stop();
      await Promise.all(system.processes.map((process) => process.stop()));
      await system.stop();
      await dropNamespace(system.env);
    },
  };
}
