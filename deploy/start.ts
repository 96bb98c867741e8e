/**
 * `npm start`: installs and starts the local Kafka and SecantusDB (unless KAFKA_BROKERS / MONGODB_URI point at
 * existing servers), starts every service and the gateway, seeds a demo organization and key when there is
 * none, prints the base URL and the key, and stops everything on Ctrl-C.
 */
import { resolve } from 'node:path';
import { ensureDemoKey } from './lib/demo-key';
import { localStackRunning, REPO_ROOT, startLocalStack, stopLocalStack } from './lib/local-stack';
import { startSystem } from './lib/system';

const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const replicaPorts = (first: number, replicas: number) => Array.from({ length: Math.max(1, replicas) }, (_, index) => first + index * 10);
const METRICS_OFFSET = { gateway: 0, crm: 1, webhooks: 2, messaging: 3, agents: 4 } as const;
const metricsBase = port('METRICS_PORT', 9464);

/** `gateway :9464, crm :9465, …` (Prometheus text at http://127.0.0.1:<port>/metrics), or how to turn them on. */
function metricsLine(metrics: Record<string, string>): string {
  const ports = Object.entries(metrics).map(([name, url]) => `${name} :${new URL(url).port}`);
  return ports.length > 0 ? `${ports.join(', ')} (http://127.0.0.1:<port>/metrics)` : 'off (METRICS_PORT=0)';
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const external = Boolean(process.env.MONGODB_URI && process.env.KAFKA_BROKERS);
  const stackWasRunning = external || (await localStackRunning());
  console.log(
    stackWasRunning
      ? 'Using the running Kafka and MongoDB-compatible servers…'
      : 'Starting Kafka and SecantusDB (the first run installs them: about 8 minutes on 2 cores, once per machine)…',
  );
  const stack = await startLocalStack();
  const stackReadyAt = Date.now();

  const logDir = resolve(REPO_ROOT, '.local/logs');
  const system = await startSystem({
    stack,
    gatewayPort: port('PORT', 8080),
    // CRM_REPLICAS / WEBHOOKS_REPLICAS / MESSAGING_REPLICAS / AGENTS_REPLICAS run more than one process of a service (ports 10 apart).
    crmPorts: replicaPorts(port('CRM_GRPC_PORT', 50051), port('CRM_REPLICAS', 1)),
    webhooksPorts: replicaPorts(port('WEBHOOKS_GRPC_PORT', 50054), port('WEBHOOKS_REPLICAS', 1)),
    messagingPorts: replicaPorts(port('MESSAGING_GRPC_PORT', 50052), port('MESSAGING_REPLICAS', 1)).map((grpc, index) => ({
      grpc,
      http: port('MESSAGING_HTTP_PORT', 8082) + index * 10,
    })),
    agentsPorts: replicaPorts(port('AGENTS_GRPC_PORT', 50053), port('AGENTS_REPLICAS', 1)),
    simulatorPort: port('SIM_PORT', 8090),
    logDir,
    // Prometheus endpoints: 9464 the gateway, then crm, webhooks, messaging, agents; replicas 10 apart. METRICS_PORT=0 turns them off.
    metricsPort: (service, replica) => (metricsBase === 0 ? 0 : metricsBase + METRICS_OFFSET[service] + replica * 10),
    env: { WEBHOOK_ALLOWED_HOSTS: process.env.WEBHOOK_ALLOWED_HOSTS ?? '127.0.0.1,localhost,::1' },
  });
  const demo = await ensureDemoKey(system.baseUrl, system.env);

  console.log(`
  CRM API is running (stack ${((stackReadyAt - startedAt) / 1000).toFixed(1)} s, services ${((Date.now() - stackReadyAt) / 1000).toFixed(1)} s)

    Base URL   ${system.baseUrl}
    API key    ${demo.api_key}${demo.created ? '   (new demo organization)' : ''}
    Docs       ${system.baseUrl}/api/docs
    Logs       ${logDir}
    Providers  ${system.env.SIM_URL} (simulator: npm run sim -- inbound --from +15550001111 --text "hi")
    Metrics    ${metricsLine(system.metrics)}

    curl -H "Authorization: Bearer ${demo.api_key}" ${system.baseUrl}/v1/contacts
    curl -H "Authorization: Bearer ${demo.api_key}" ${system.baseUrl}/v1/conversations

  Press Ctrl-C to stop.`);

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    await system.stop();
    if (!stackWasRunning) await stopLocalStack();
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  for (const service of system.processes) {
    void service.exited.then((code) => {
      if (stopping) return;
      console.error(`${service.name} exited unexpectedly (code ${String(code)}); see ${logDir}/${service.name}.log`);
      void shutdown();
    });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
