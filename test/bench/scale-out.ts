import { resolve } from 'node:path';
import { freePort } from '../../deploy/lib/ports';
import { startBenchServer } from './bench-server';
import type { BenchConfig } from './config';
import { runLoad, type LoadResult } from './load';
import { startOwnSystem } from './own-system';
import { cpuReading } from './route-cost';
import { stackProcesses } from './proc-stats';
import { routeScenarios } from './route-set';
import { seedContacts } from './seed';

/** One shape of the system, measured through the round-robin proxy. */
export interface ScaleOutRun {
  gateways: number;
  crm: number;
  route: string;
  load: LoadResult;
  /** CPU ms per request by process group over the run: where the two cores went. */
  cpu_ms_per_request: Record<string, number>;
}

export interface ScaleOutFigures {
  clients: number;
  runs: ScaleOutRun[];
}

const ROUTES = ['GET /v1/contacts', 'POST /v1/contacts'];

/**
 * Issue 23 item 7: GET and POST /v1/contacts with 1 gateway + 1 CRM replica and with 2 + 2, each behind the same
 * local round-robin proxy (a process of its own), on systems of their own with the same seed. The CPU of every
 * process over each run shows what limits it on this machine.
 */
export async function measureScaleOut(config: BenchConfig, log: (line: string) => void): Promise<ScaleOutFigures> {
  const clients = Math.max(...config.clients);
  const runs: ScaleOutRun[] = [];
  for (const replicas of [1, 2]) {
    log(`scale-out: ${replicas} gateway(s) + ${replicas} CRM replica(s) behind a round-robin proxy`);
    const gatewayPorts = await Promise.all(Array.from({ length: replicas }, () => freePort()));
    const own = await startOwnSystem({ crmReplicas: replicas, webhooksReplicas: 1, gatewayPorts });
    const proxy = await startBenchServer(
      'proxy',
      'round-robin-proxy.server.ts',
      { BENCH_UPSTREAMS: gatewayPorts.join(',') },
      resolve(own.logDir, 'proxy.log'),
      '/healthz',
    );
    try {
      const contactIds = await seedContacts(own.contacts, own.orgId, config.contacts);
      const watched = [
        ...own.system.processes
          .filter((process) => /^(gateway|crm)(-\d+)?$/.test(process.name))
          .map((process) => ({ name: process.name, pid: process.child.pid ?? 0, node: true })),
        { name: 'proxy', pid: proxy.pid, node: true },
        ...stackProcesses().filter((process) => process.name.startsWith('database')),
      ];
      const scenarios = routeScenarios({ ceiling: '', peer: '', gateway: proxy.baseUrl, key: own.key, contactIds, dealIds: [] });
      for (const route of ROUTES) {
        const scenario = scenarios.find((candidate) => candidate.side === 'project' && candidate.route === route);
        if (!scenario) continue;
        await runLoad({ baseUrl: proxy.baseUrl, request: scenario.request, clients, seconds: config.warmupSeconds || 2 });
        const cpu = cpuReading(watched);
        const load = await runLoad({ baseUrl: proxy.baseUrl, request: scenario.request, clients, seconds: config.seconds });
        runs.push({ gateways: replicas, crm: replicas, route, load, cpu_ms_per_request: cpu.since(load.requests) });
        log(`scale-out ${replicas}+${replicas} ${route}: ${load.rps} req/s p50 ${load.p50_ms} ms p99 ${load.p99_ms} ms`);
      }
    } finally {
      await proxy.stop();
      await own.stop();
    }
  }
  return { clients, runs };
}
