import { join, resolve } from 'node:path';
import { REPO_ROOT, type StackEnv } from './local-stack';
import { startService, waitUntil, type ServiceProcess } from './processes';

export type ServiceName = 'crm' | 'webhooks' | 'simulator' | 'messaging' | 'agents' | 'gateway';

export interface SystemOptions {
  stack: StackEnv;
  gatewayPort: number;
  /** Several gateway replicas (`gateway-1`, `gateway-2`, … on these ports) instead of one on gatewayPort. */
  gatewayPorts?: number[];
  /** One gRPC port per CRM replica: two ports run two replicas, and the gateway spreads its calls over them. */
  crmPorts: number[];
  /** One gRPC port per webhook replica; the replicas share the consumer group and the retry queue. */
  webhooksPorts: number[];
  /** Per messaging replica, its gRPC port and the HTTP port of its provider-callback listener. */
  messagingPorts: Array<{ grpc: number; http: number }>;
  /** One gRPC port per agents replica; the replicas share the runner's consumer group and the due runs. */
  agentsPorts: number[];
  /** The provider simulator, which stands in for every channel provider locally and posts callbacks. */
  simulatorPort: number;
  /** Suffix of the database names and of the events topic, so a test run never touches dev data. */
  namespace?: string;
  logDir: string;
  /** When set, every process writes its spans to `<tracesDir>/<process name>.jsonl` (e.g. crm-2.jsonl). */
  tracesDir?: string;
  /** Extra environment for every process (e.g. WEBHOOK_ALLOWED_HOSTS). */
  env?: NodeJS.ProcessEnv;
  /** Extra environment per service (every replica of it). */
  envFor?: Partial<Record<ServiceName, NodeJS.ProcessEnv>>;
  /**
   * The Prometheus port of each process (its METRICS_PORT), by service and 0-based replica; 0 or no function
   * turns its metrics off. The simulator has none.
   */
  metricsPort?: (service: Exclude<ServiceName, 'simulator'>, replica: number) => number | Promise<number>;
}

export interface RunningSystem {
  baseUrl: string;
  env: NodeJS.ProcessEnv;
  /** Every process, replicas named `crm-1`, `crm-2`, … when a service has several. */
  processes: ServiceProcess[];
  /** The scrape URL of each process that serves metrics, by process name (`gateway`, `crm-1`, …). */
  metrics: Record<string, string>;
  /** Starts a process of the plan again by name (after a kill), with its own environment; replaces it in `processes`. */
  respawn(name: string): ServiceProcess;
  stop(): Promise<void>;
}

const ENTRIES: Record<ServiceName, string> = {
  crm: 'services/crm/src/main.ts',
  webhooks: 'services/webhooks/src/main.ts',
  simulator: 'services/messaging/src/simulator/main.ts',
  messaging: 'services/messaging/src/main.ts',
  agents: 'services/agents/src/main.ts',
  gateway: 'gateway/src/main.ts',
};

const addresses = (ports: number[]): string => ports.map((port) => `127.0.0.1:${port}`).join(',');

/** The environment every process of one system shares: the servers, database names, topic and service addresses. */
export function systemEnv(
  options: Pick<
    SystemOptions,
    'stack' | 'namespace' | 'gatewayPort' | 'crmPorts' | 'webhooksPorts' | 'messagingPorts' | 'agentsPorts' | 'simulatorPort' | 'env'
  >,
): NodeJS.ProcessEnv {
  const suffix = options.namespace ? `_${options.namespace}` : '';
  const sim = `http://127.0.0.1:${options.simulatorPort}`;
  return {
    MONGODB_URI: options.stack.MONGODB_URI,
    KAFKA_BROKERS: options.stack.KAFKA_BROKERS,
    CRM_DB_NAME: `crm${suffix}`,
    WEBHOOKS_DB_NAME: `webhooks${suffix}`,
    MESSAGING_DB_NAME: `messaging${suffix}`,
    AGENTS_DB_NAME: `agents${suffix}`,
    GATEWAY_DB_NAME: `gateway${suffix}`,
    EVENTS_TOPIC: options.namespace ? `crm.domain-events.${options.namespace}` : 'crm.domain-events.v1',
    CRM_GRPC_URL: addresses(options.crmPorts),
    WEBHOOKS_GRPC_URL: addresses(options.webhooksPorts),
    MESSAGING_GRPC_URL: addresses(options.messagingPorts.map((ports) => ports.grpc)),
    AGENTS_GRPC_URL: addresses(options.agentsPorts),
    // Every provider is the simulator locally; it spreads its callbacks over the messaging replicas.
    SIM_PORT: String(options.simulatorPort),
    SIM_URL: sim,
    SIM_CALLBACK_URL: options.messagingPorts.map((ports) => `http://127.0.0.1:${ports.http}`).join(','),
    CLOUD_API_BASE_URL: sim,
    QR_BRIDGE_BASE_URL: sim,
    PHOTOAPP_BASE_URL: `${sim}/photoapp`,
    SOCIALMSG_BASE_URL: `${sim}/socialmsg`,
    CRM_CONSUMER_GROUP: options.namespace ? `crm-messages-${options.namespace}` : 'crm-messages',
    AGENTS_CONSUMER_GROUP: options.namespace ? `agents-runner-${options.namespace}` : 'agents-runner',
    PORT: String(options.gatewayPort),
    // Webhook secrets at rest: a fixed key so local data survives restarts; it is in the repository, so local only.
    WEBHOOK_SECRETS_KEY: 'QH9xkXbQtg6pGR1gItle2QeN5GMH6xrwEmjhs2WcSQE=',
    WEBHOOK_SECRETS_KEY_ID: 'local',
    // No load balancer sits in front of a local gateway, so nothing needs time to notice that it drains (the
    // chaos suite, which has one, sets its own); Ctrl-C then stops it at once.
    SHUTDOWN_DRAIN_MS: '0',
    ...options.env,
  };
}

interface ProcessPlan {
  name: string;
  service: ServiceName;
  /** 0-based replica of its service. */
  replica: number;
  env: NodeJS.ProcessEnv;
}

function plan(options: SystemOptions): ProcessPlan[] {
  const replicas = (service: ServiceName, ports: number[], portVariable: string): ProcessPlan[] =>
    ports.map((port, index) => ({
      name: ports.length > 1 ? `${service}-${index + 1}` : service,
      service,
      replica: index,
      env: { [portVariable]: String(port) },
    }));
  return [
    ...replicas('crm', options.crmPorts, 'CRM_GRPC_PORT'),
    ...replicas('webhooks', options.webhooksPorts, 'WEBHOOKS_GRPC_PORT'),
    { name: 'simulator', service: 'simulator', replica: 0, env: {} },
    ...options.messagingPorts.map(({ grpc, http }, index, all) => ({
      name: all.length > 1 ? `messaging-${index + 1}` : 'messaging',
      service: 'messaging' as const,
      replica: index,
      env: { MESSAGING_GRPC_PORT: String(grpc), MESSAGING_HTTP_PORT: String(http) },
    })),
    ...replicas('agents', options.agentsPorts, 'AGENTS_GRPC_PORT'),
    ...(options.gatewayPorts
      ? replicas('gateway', options.gatewayPorts, 'PORT')
      : [{ name: 'gateway', service: 'gateway' as const, replica: 0, env: {} }]),
  ];
}

/**
 * Starts the CRM replicas, the webhook replicas, the provider simulator, the messaging replicas, the agents replicas and the gateway, and
 * waits until the gateway is ready.
 */
export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const env = systemEnv(options);
  const processes: ServiceProcess[] = [];
  const metrics: Record<string, string> = {};
  const stop = async () => {
    // Reverse order: the gateway stops taking requests before the services it calls go away.
    for (const process of [...processes].reverse()) await process.stop();
  };
  const commands = new Map<string, () => ServiceProcess>();
  try {
    for (const { name, service, replica, env: own } of plan(options)) {
      const traces = options.tracesDir ? { OTEL_TRACES_FILE: join(options.tracesDir, `${name}.jsonl`) } : {};
      const metricsPort = service === 'simulator' ? 0 : ((await options.metricsPort?.(service, replica)) ?? 0);
      if (metricsPort > 0) metrics[name] = `http://127.0.0.1:${metricsPort}/metrics`;
      const processEnv = { ...env, ...options.envFor?.[service], ...own, METRICS_PORT: String(metricsPort), ...traces };
      const command = () => startService(name, resolve(REPO_ROOT, ENTRIES[service]), processEnv, resolve(options.logDir, `${name}.log`));
      commands.set(name, command);
      processes.push(command());
    }
    const gatewayPorts = options.gatewayPorts ?? [options.gatewayPort];
    const baseUrl = `http://127.0.0.1:${gatewayPorts[0]}`;
    for (const [index, port] of gatewayPorts.entries()) {
      const gateway = processes[processes.length - gatewayPorts.length + index];
      await waitUntil(`the gateway on ${port}`, async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, {
        timeoutMs: 90_000,
        process: gateway,
        logFile: resolve(options.logDir, `${gateway?.name ?? 'gateway'}.log`),
      });
    }
    const respawn = (name: string): ServiceProcess => {
      const command = commands.get(name);
      if (!command) throw new Error(`no process named ${name} in this system`);
      const started = command();
      processes.splice(
        processes.findIndex((process) => process.name === name),
        1,
        started,
      );
      return started;
    };
    return { baseUrl, env, processes, metrics, respawn, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
