import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import { freePort, freePorts, servicePorts } from '../../deploy/lib/ports';
import { generateSecrets } from '../../deploy/lib/secrets';
import { operatorEnv, type ServiceName, type SystemOptions } from '../../deploy/lib/system';
import type { TestSystem } from '../support/system';
import type { ChaosContext, ChaosProfile, ChaosStackEnv } from './support/context';
import { startStack, stopStack } from './support/stack-control';
import { startToxiproxyServer, toxiproxy } from './support/toxiproxy';
import { CHAOS_ENV } from './support/settings';

declare module 'vitest' {
  export interface ProvidedContext {
    system: TestSystem;
  }
}

/**
 * The chaos suite's own servers — Kafka and SecantusDB on their own ports and state directory, which the scenarios
 * stop and start (never the shared stack), and a toxiproxy in front of the database and the CRM replicas — and the
 * plan of the system the test starts itself: two replicas of each service, two gateways behind a load balancer.
 */
export default async function setup(project: TestProject) {
  const profile = (process.env.CHAOS_PROFILE ?? 'short') as ChaosProfile;
  if (profile !== 'short' && profile !== 'full') throw new Error(`CHAOS_PROFILE must be short or full, not ${profile}`);
  const namespace = `chaos${Date.now().toString(36)}`;
  const localDir = resolve(REPO_ROOT, '.local/chaos');
  const logDir = resolve(localDir, 'logs', namespace);
  mkdirSync(logDir, { recursive: true });
  const [mongoPort, kafkaPort, controllerPort] = await freePorts(3);
  const stackEnv: ChaosStackEnv = {
    CRM_STACK_DIR: resolve(localDir, 'stack'),
    STACK_MONGO_PORT: String(mongoPort),
    STACK_KAFKA_PORT: String(kafkaPort),
    STACK_KAFKA_CONTROLLER_PORT: String(controllerPort),
  };
  // A fresh state directory each run: the controller port changes between runs, and nothing is worth keeping.
  rmSync(stackEnv.CRM_STACK_DIR, { recursive: true, force: true });
  const stack = await startStack(stackEnv);
  const toxi = await startToxiproxyServer(await freePort(), resolve(logDir, 'toxiproxy.log'));

  const services = await servicePorts(2);
  const { crmPorts } = services;
  const [mongoProxyPort, ...crmProxyPorts] = await freePorts(3);
  const proxies = toxiproxy(toxi.url);
  await proxies.createProxy('mongo', `127.0.0.1:${mongoProxyPort}`, `127.0.0.1:${mongoPort}`);
  for (const [index, port] of crmPorts.entries())
    await proxies.createProxy(`crm-${index + 1}`, `127.0.0.1:${crmProxyPorts[index]}`, `127.0.0.1:${port}`);

  // Every service reaches the database through its proxy, and the gateways reach the CRM replicas through theirs;
  // the test itself (its ledger, its admin writes) goes straight to the servers.
  const proxiedMongo = { MONGODB_URI: `mongodb://127.0.0.1:${mongoProxyPort}/?directConnection=true` };
  const proxied: ServiceName[] = ['crm', 'webhooks', 'messaging', 'agents'];
  const gatewayPorts = await freePorts(2);
  const options: SystemOptions = {
    stack,
    namespace,
    secrets: generateSecrets(),
    gatewayPort: gatewayPorts[0]!,
    gatewayPorts,
    ...services,
    logDir,
    env: { ...CHAOS_ENV, WEBHOOK_CONSUMER_GROUP: `webhooks-${namespace}` },
    envFor: {
      ...Object.fromEntries(proxied.map((service) => [service, proxiedMongo])),
      gateway: { ...proxiedMongo, CRM_GRPC_URL: crmProxyPorts.map((port) => `127.0.0.1:${port}`).join(',') },
    },
  };
  const balancerPort = await freePort();
  const context: ChaosContext = { profile, options, balancerPort, toxiproxyUrl: toxi.url, stackEnv };
  project.provide('chaos', context);
  project.provide('system', {
    baseUrl: `http://127.0.0.1:${balancerPort}`,
    env: operatorEnv(options) as Record<string, string>,
    tracesDir: logDir,
    logDir,
    metrics: {},
  });

  return async () => {
    toxi.child.kill('SIGTERM');
    await stopStack(stackEnv);
    rmSync(stackEnv.CRM_STACK_DIR, { recursive: true, force: true });
  };
}
