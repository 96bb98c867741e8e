import { resolve } from 'node:path';
import { REPO_ROOT, type StackEnv } from './local-stack';
import { startService, waitUntil, type ServiceProcess } from './processes';

type ProcessName = 'crm' | 'webhooks' | 'simulator' | 'messaging' | 'gateway';

export interface SystemOptions {
  stack: StackEnv;
  gatewayPort: number;
  crmPort: number;
  webhooksPort: number;
  /** The messaging service's gRPC port, its provider-callback HTTP port and the provider simulator's port. */
  messagingPort?: number;
  messagingHttpPort?: number;
  simulatorPort?: number;
  /** Suffix of the database names and of the events topic, so a test run never touches dev data. */
  namespace?: string;
  logDir: string;
  /** Extra environment for every process (e.g. OTEL_TRACES_FILE, WEBHOOK_ALLOWED_HOSTS). */
  env?: NodeJS.ProcessEnv;
  /** Extra environment per process name. */
  envFor?: Partial<Record<ProcessName, NodeJS.ProcessEnv>>;
}

export interface RunningSystem {
  baseUrl: string;
  env: NodeJS.ProcessEnv;
  processes: ServiceProcess[];
  stop(): Promise<void>;
}

/** The environment every process of one system shares: the servers, database names and the topic. */
export function systemEnv(options: SystemOptions): NodeJS.ProcessEnv {
  const suffix = options.namespace ? `_${options.namespace}` : '';
  const messagingPort = options.messagingPort ?? 50052;
  const messagingHttpPort = options.messagingHttpPort ?? 8082;
  const sim = `http://127.0.0.1:${options.simulatorPort ?? 8090}`;
  return {
    MONGODB_URI: options.stack.MONGODB_URI,
    KAFKA_BROKERS: options.stack.KAFKA_BROKERS,
    CRM_DB_NAME: `crm${suffix}`,
    WEBHOOKS_DB_NAME: `webhooks${suffix}`,
    MESSAGING_DB_NAME: `messaging${suffix}`,
    GATEWAY_DB_NAME: `gateway${suffix}`,
    EVENTS_TOPIC: options.namespace ? `crm.domain-events.${options.namespace}` : 'crm.domain-events.v1',
    CRM_GRPC_PORT: String(options.crmPort),
    CRM_GRPC_URL: `127.0.0.1:${options.crmPort}`,
    WEBHOOKS_GRPC_PORT: String(options.webhooksPort),
    WEBHOOKS_GRPC_URL: `127.0.0.1:${options.webhooksPort}`,
    MESSAGING_GRPC_PORT: String(messagingPort),
    MESSAGING_GRPC_URL: `127.0.0.1:${messagingPort}`,
    MESSAGING_HTTP_PORT: String(messagingHttpPort),
    // Every provider is the simulator locally; it posts its callbacks to the messaging service.
    SIM_PORT: String(options.simulatorPort ?? 8090),
    SIM_URL: sim,
    SIM_CALLBACK_URL: `http://127.0.0.1:${messagingHttpPort}`,
    CLOUD_API_BASE_URL: sim,
    QR_BRIDGE_BASE_URL: sim,
    PHOTOAPP_BASE_URL: `${sim}/photoapp`,
    SOCIALMSG_BASE_URL: `${sim}/socialmsg`,
    CRM_CONSUMER_GROUP: options.namespace ? `crm-messages-${options.namespace}` : 'crm-messages',
    PORT: String(options.gatewayPort),
    ...options.env,
  };
}

/**
 * Starts the CRM service, the webhook service, the provider simulator, the messaging service and the gateway, and
 * waits until the gateway is ready.
 */
export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const env = systemEnv(options);
  const services: Array<[ProcessName, string]> = [
    ['crm', 'services/crm/src/main.ts'],
    ['webhooks', 'services/webhooks/src/main.ts'],
    ['simulator', 'services/messaging/src/simulator/main.ts'],
    ['messaging', 'services/messaging/src/main.ts'],
    ['gateway', 'gateway/src/main.ts'],
  ];
  const processes: ServiceProcess[] = [];
  const stop = async () => {
    // Reverse order: the gateway stops taking requests before the services it calls go away.
    for (const process of [...processes].reverse()) await process.stop();
  };
  try {
    for (const [name, entry] of services) {
      const logFile = resolve(options.logDir, `${name}.log`);
      processes.push(startService(name, resolve(REPO_ROOT, entry), { ...env, ...options.envFor?.[name] }, logFile));
    }
    const baseUrl = `http://127.0.0.1:${options.gatewayPort}`;
    const gateway = processes[processes.length - 1];
    await waitUntil('the gateway', async () => (await fetch(`${baseUrl}/readyz`)).ok, {
      timeoutMs: 90_000,
      process: gateway,
      logFile: resolve(options.logDir, 'gateway.log'),
    });
    return { baseUrl, env, processes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
