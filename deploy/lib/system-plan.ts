import { checkGrpc, checkHttp } from '../../services/shared/src/bin/healthcheck';
import { kafkaLogin, type StackEnv } from './local-stack';
import type { SharedSecrets } from './secrets';

export type ServiceName = 'crm' | 'webhooks' | 'simulator' | 'messaging' | 'agents' | 'gateway';

/** Where a system's processes listen and what they share: everything the plan below is made from. */
export interface SystemPorts {
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
}

/** One process of a system. */
export interface ProcessPlan {
  name: string;
  service: ServiceName;
  /** 0-based replica of its service. */
  replica: number;
  /** Its own variables (its ports). */
  env: NodeJS.ProcessEnv;
  /** Its listeners by role (`grpc`, `http`, `callbacks`), for `npm start -- status`. */
  ports: Record<string, number>;
  /** Whether it serves: the gateway's /readyz, grpc.health.v1 of a service, the simulator's /healthz. */
  healthy(): Promise<boolean>;
}

export const ENTRIES: Record<ServiceName, string> = {
  crm: 'services/crm/src/main.ts',
  webhooks: 'services/webhooks/src/main.ts',
  simulator: 'tools/dev/src/simulator/main.ts',
  messaging: 'services/messaging/src/main.ts',
  agents: 'services/agents/src/main.ts',
  gateway: 'gateway/src/main.ts',
};

const addresses = (ports: number[]): string => ports.map((port) => `127.0.0.1:${port}`).join(',');
const grpcHealth = (port: number) => () => checkGrpc(`127.0.0.1:${port}`, 1_000);

type SystemEnvOptions = SystemPorts & { stack: StackEnv; namespace?: string; secrets: SharedSecrets; env?: NodeJS.ProcessEnv };

/**
 * The environment every process of one system shares: the servers, database names, topic, service addresses,
 * secrets. No Kafka login: each service gets its own (serviceKafkaLogin).
 */
export function systemEnv(options: SystemEnvOptions): NodeJS.ProcessEnv {
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
    MESSAGING_CONSUMER_GROUP: options.namespace ? `messaging-merges-${options.namespace}` : 'messaging-merges',
    PORT: String(options.gatewayPort),
    // No load balancer sits in front of a local gateway, so nothing needs time to notice that it drains (the
    // chaos suite, which has one, sets its own); Ctrl-C then stops it at once.
    SHUTDOWN_DRAIN_MS: '0',
    // Keys every replica must share (cursor signing, webhook secrets at rest): see secrets.ts.
    ...options.secrets,
    ...options.env,
  };
}

/** The services that talk to Kafka: each logs in as itself where the stack's Kafka takes logins. */
const KAFKA_CLIENTS: ReadonlySet<ServiceName> = new Set(['crm', 'webhooks', 'messaging', 'agents']);

export const serviceKafkaLogin = (stack: StackEnv, service: ServiceName): NodeJS.ProcessEnv =>
  KAFKA_CLIENTS.has(service) ? kafkaLogin(stack, service) : {};

/** The environment of the tests and tools around a system: the system's, logged in to Kafka as `admin`. */
export const operatorEnv = (options: SystemEnvOptions): NodeJS.ProcessEnv => ({
  ...systemEnv(options),
  ...kafkaLogin(options.stack, 'admin'),
});

/** Every process of a system, in start order: the services before the gateway that calls them. */
export function planProcesses(options: SystemPorts): ProcessPlan[] {
  const replicas = (service: ServiceName, ports: number[], portVariable: string, healthy: (port: number) => () => Promise<boolean>) =>
    ports.map((port, index): ProcessPlan => ({
      name: ports.length > 1 ? `${service}-${index + 1}` : service,
      service,
      replica: index,
      env: { [portVariable]: String(port) },
      ports: { [service === 'gateway' ? 'http' : 'grpc']: port },
      healthy: healthy(port),
    }));
  return [
    ...replicas('crm', options.crmPorts, 'CRM_GRPC_PORT', grpcHealth),
    ...replicas('webhooks', options.webhooksPorts, 'WEBHOOKS_GRPC_PORT', grpcHealth),
    {
      name: 'simulator',
      service: 'simulator',
      replica: 0,
      env: {},
      ports: { http: options.simulatorPort },
      healthy: () => checkHttp(options.simulatorPort, '/healthz', 1_000),
    },
    ...options.messagingPorts.map(({ grpc, http }, index, all): ProcessPlan => ({
      name: all.length > 1 ? `messaging-${index + 1}` : 'messaging',
      service: 'messaging',
      replica: index,
      env: { MESSAGING_GRPC_PORT: String(grpc), MESSAGING_HTTP_PORT: String(http) },
      ports: { grpc, callbacks: http },
      healthy: grpcHealth(grpc),
    })),
    ...replicas('agents', options.agentsPorts, 'AGENTS_GRPC_PORT', grpcHealth),
    ...replicas('gateway', options.gatewayPorts ?? [options.gatewayPort], 'PORT', (port) => () => checkHttp(port, '/readyz', 2_000)).map(
      (gateway) => (options.gatewayPorts ? gateway : { ...gateway, name: 'gateway', env: {} }),
    ),
  ];
}
