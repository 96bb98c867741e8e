import { join } from 'node:path';
import { freePort } from '../../deploy/lib/ports';
import { startService, waitUntil, type ServiceProcess } from '../../deploy/lib/processes';
import { testSystem } from './system';

export interface ExtraGateway {
  baseUrl: string;
  port: number;
  process: ServiceProcess;
  stop(): Promise<void>;
}

/**
 * One more gateway process in front of the running test system's services and databases, with its own env on
 * top (limits, timeouts): for the behaviours the shared gateway runs without (it has RATE_LIMIT_PER_SECOND=0).
 */
export async function startExtraGateway(name: string, env: Record<string, string>): Promise<ExtraGateway> {
  const system = testSystem();
  const port = await freePort();
  const logFile = join(system.logDir, `${name}-${port}.log`);
  const process = startService(name, 'gateway/src/main.ts', { ...system.env, PORT: String(port), METRICS_PORT: '0', ...env }, logFile);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil(name, async () => (await fetch(`${baseUrl}/readyz`)).ok, { timeoutMs: 60_000, process, logFile });
  return { baseUrl, port, process, stop: () => process.stop() };
}
