import { join, resolve } from 'node:path';
import { REPO_ROOT, type StackEnv } from './local-stack';
import { startService, waitUntil } from './processes';
import type { SharedSecrets } from './secrets';
import { supervise, type ProcessSnapshot, type SupervisedProcess, type SupervisorOptions } from './supervisor';
import { ENTRIES, operatorEnv, planProcesses, serviceKafkaLogin, systemEnv, type ServiceName, type SystemPorts } from './system-plan';

export { operatorEnv, systemEnv, type ServiceName } from './system-plan';

export interface SystemOptions extends SystemPorts {
  stack: StackEnv;
  /** Suffix of the database names and of the events topic, so a test run never touches dev data. */
  namespace?: string;
  /** The keys every replica shares (secrets.ts): localSecrets() for npm start, generateSecrets() for a test run. */
  secrets: SharedSecrets;
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
  /** How crashed processes are restarted and where that is reported (supervisor.ts). */
  supervisor?: SupervisorOptions;
}

/** A process as `npm start -- status` shows it. */
export interface ProcessStatus extends ProcessSnapshot {
  ports: Record<string, number>;
}

export interface RunningSystem {
  baseUrl: string;
  /** The processes' shared environment, logged in to Kafka as `admin` (for the tests and tools around the system). */
  env: NodeJS.ProcessEnv;
  /** Every process, replicas named `crm-1`, `crm-2`, … when a service has several; each restarted when it crashes. */
  processes: SupervisedProcess[];
  /** The scrape URL of each process that serves metrics, by process name (`gateway`, `crm-1`, …). */
  metrics: Record<string, string>;
  /** The process named `name`; throws when the plan has none. */
  process(name: string): SupervisedProcess;
  /** Starts again a process that was stopped on purpose (`process(name).stop(…)`), with its own environment. */
  respawn(name: string): SupervisedProcess;
  /** Whether the process serves now (gateway /readyz, grpc.health.v1, simulator /healthz). */
  healthy(name: string): Promise<boolean>;
  status(): ProcessStatus[];
  stop(): Promise<void>;
}

/**
 * Starts the CRM replicas, the webhook replicas, the provider simulator, the messaging replicas, the agents replicas
 * and the gateway, each under a supervisor, and waits until the gateway is ready.
 */
export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const env = systemEnv(options);
  const plans = planProcesses(options);
  const processes: SupervisedProcess[] = [];
  const metrics: Record<string, string> = {};
  const stop = async () => {
    for (const process of processes) process.hold();
    // Reverse order: the gateway stops taking requests before the services it calls go away.
    for (const process of [...processes].reverse()) await process.stop();
  };
  const find = <T extends { name: string }>(list: T[], name: string): T => {
    const found = list.find((item) => item.name === name);
    if (!found) throw new Error(`no process named ${name} in this system`);
    return found;
  };
  try {
    for (const { name, service, replica, env: own, ports } of plans) {
      // The tests that read spans need every trace, not the production sample.
      const traces = options.tracesDir ? { OTEL_TRACES_FILE: join(options.tracesDir, `${name}.jsonl`), OTEL_TRACES_SAMPLER_ARG: '1' } : {};
      const metricsPort = service === 'simulator' ? 0 : ((await options.metricsPort?.(service, replica)) ?? 0);
      if (metricsPort > 0) {
        metrics[name] = `http://127.0.0.1:${metricsPort}/metrics`;
        ports.metrics = metricsPort;
      }
      const processEnv = {
        ...env,
        ...serviceKafkaLogin(options.stack, service),
        ...options.envFor?.[service],
        ...own,
        METRICS_PORT: String(metricsPort),
        ...traces,
      };
      const logFile = resolve(options.logDir, `${name}.log`);
      processes.push(
        supervise(name, () => startService(name, resolve(REPO_ROOT, ENTRIES[service]), processEnv, logFile), logFile, options.supervisor),
      );
    }
    for (const gateway of plans.filter((plan) => plan.service === 'gateway')) {
      await waitUntil(`the gateway on ${gateway.ports.http}`, () => gateway.healthy(), {
        timeoutMs: 90_000,
        process: find(processes, gateway.name),
        logFile: resolve(options.logDir, `${gateway.name}.log`),
      });
    }
    return {
      baseUrl: `http://127.0.0.1:${(options.gatewayPorts ?? [options.gatewayPort])[0]}`,
      env: operatorEnv(options),
      processes,
      metrics,
      process: (name) => find(processes, name),
      respawn: (name) => find(processes, name).start(),
      healthy: (name) => find(plans, name).healthy(),
      status: () => plans.map((plan) => ({ ...find(processes, plan.name).snapshot(), ports: plan.ports })),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
