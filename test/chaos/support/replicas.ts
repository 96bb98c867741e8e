import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { waitUntil } from '../../../deploy/lib/processes';
import type { RunningSystem, SystemOptions } from '../../../deploy/lib/system';

type HealthClient = {
  check(request: { service: string }, callback: (error: ServiceError | null, response?: { status: string | number }) => void): void;
  close(): void;
};

/** grpc.health.v1 of one replica answers SERVING. */
async function serving(address: string): Promise<boolean> {
  const Client = makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');
  const client = new Client(address, credentials.createInsecure()) as unknown as HealthClient;
  try {
    const status = await new Promise((resolve, reject) =>
      client.check({ service: '' }, (error, response) => (error ? reject(error) : resolve(response?.status))),
    );
    return status === 1 || status === 'SERVING';
  } finally {
    client.close();
  }
}

/** How to tell that the process `name` (crm-1, gateway-2, …) of the plan is ready again. */
function readiness(options: SystemOptions, name: string): () => Promise<boolean> {
  const [service, ordinal] = name.split('-') as [string, string];
  const index = Number(ordinal) - 1;
  const grpc = (ports: number[]) => () => serving(`127.0.0.1:${ports[index]}`);
  switch (service) {
    case 'gateway':
      return async () => (await fetch(`http://127.0.0.1:${options.gatewayPorts?.[index]}/readyz`)).ok;
    case 'crm':
      return grpc(options.crmPorts);
    case 'webhooks':
      return grpc(options.webhooksPorts);
    case 'agents':
      return grpc(options.agentsPorts);
    case 'messaging':
      return grpc(options.messagingPorts.map((ports) => ports.grpc));
    default:
      throw new Error(`no readiness check for ${name}`);
  }
}

/**
 * Stops one replica with `signal` (SIGKILL: a crash; SIGTERM: a rolling update), leaves it down for `downMs` (what
 * a restart takes in a cluster), starts it again and waits until it is ready. Resolves at the restart: the fault's end.
 */
export async function restartReplica(
  system: RunningSystem,
  options: SystemOptions,
  name: string,
  signal: NodeJS.Signals,
  downMs: number,
): Promise<number> {
  const victim = system.processes.find((process) => process.name === name);
  if (!victim) throw new Error(`no process ${name}`);
  await victim.stop(signal);
  await new Promise((resolve) => setTimeout(resolve, downMs));
  const restartedAt = Date.now();
  const started = system.respawn(name);
  await waitUntil(`${name} after its restart`, readiness(options, name), { timeoutMs: 90_000, process: started });
  return restartedAt;
}
