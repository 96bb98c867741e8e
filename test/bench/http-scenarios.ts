import type { BenchConfig } from './config';
import { runLoad, type LoadRequest, type LoadResult } from './load';
import type { Watched } from './proc-stats';
import { settle } from './quiet';
import { cpuReading, type RouteCost } from './route-cost';

export type Side = 'ceiling' | 'peer' | 'project';

export interface RouteFigures {
  side: Side;
  route: string;
  /** A read route: also measured at half its maximum rate, and compared with the peer. */
  read: boolean;
  runs: LoadResult[];
  /** The same clients held to half the best req/s of `runs` (autocannon overallRate): latency below saturation. */
  half_rate: LoadResult | null;
  /** Where one request went, from the run with the most clients (absent on the ceiling). */
  cost?: RouteCost;
}

export interface RouteScenario {
  side: Side;
  route: string;
  read: boolean;
  baseUrl: string;
  request: LoadRequest;
  /** The processes whose CPU one request costs (the gateway, the service replicas, the database; the peer). */
  processes?: Watched[];
}

/** Warms the route up, then measures it at each client count, then (read routes) at half the best rate. */
export async function measureRoute(scenario: RouteScenario, config: BenchConfig, log: (line: string) => void): Promise<RouteFigures> {
  const most = Math.max(...config.clients);
  const load = async (clients: number, seconds: number, rate?: number) => {
    await settle(log, `${scenario.side} ${scenario.route}`);
    const result = await runLoad({ baseUrl: scenario.baseUrl, request: scenario.request, clients, seconds, rate });
    await drain(scenario);
    return result;
  };
  if (config.warmupSeconds > 0) await load(most, config.warmupSeconds);
  const runs: LoadResult[] = [];
  let cost: RouteCost | undefined;
  for (const clients of config.clients) {
    const cpu = clients === most && scenario.processes ? cpuReading(scenario.processes) : undefined;
    const run = await load(clients, config.seconds);
    log(line(scenario, run));
    runs.push(run);
    if (cpu) {
      // Commands and gRPC bytes of one request come from a system with diagnostics (run.ts: probeRouteSet).
      cost = { cpu_ms_per_request: cpu.since(run.requests), db_commands: null, commands: [], grpc_bytes: null };
      log(
        `${scenario.side.padEnd(8)} ${scenario.route.padEnd(26)} CPU ms/request ${JSON.stringify(cost.cpu_ms_per_request)}  db commands ${cost.db_commands ?? '—'}  gRPC bytes ${JSON.stringify(cost.grpc_bytes)}`,
      );
    }
  }
  let halfRate: LoadResult | null = null;
  const best = Math.max(...runs.map((run) => run.rps));
  if (scenario.read && best >= 2) {
    halfRate = await load(most, config.seconds, Math.floor(best / 2));
    log(line(scenario, halfRate));
  }
  return { side: scenario.side, route: scenario.route, read: scenario.read, runs, half_rate: halfRate, ...(cost ? { cost } : {}) };
}

/**
 * autocannon drops its connections when a run ends, but the server still finishes what they had asked for: one
 * more request, answered only after that backlog, keeps it out of the next run's figures.
 */
async function drain({ baseUrl, request }: RouteScenario): Promise<void> {
  await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(60_000),
  }).then(
    (response) => response.arrayBuffer(),
    () => undefined,
  );
}

function line(scenario: RouteScenario, run: LoadResult): string {
  const rate = run.target_rate === null ? '' : ` @${run.target_rate}/s`;
  return `${scenario.side.padEnd(8)} ${scenario.route.padEnd(26)} c=${String(run.clients).padEnd(2)}${rate.padEnd(9)} ${String(run.rps).padStart(8)} req/s  p50 ${run.p50_ms} ms  p99 ${run.p99_ms} ms  errors ${run.errors}  non-2xx ${run.non_2xx}${run.send_lag_p99_ms == null ? '' : `  sent late p99 ${run.send_lag_p99_ms} ms`}`;
}
