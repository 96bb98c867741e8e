/**
 * `npm run bench:capacity`: is one organization's availability independent of another's traffic? On a system of its
 * own with the gateway's per-organization bulkheads on (docs/capacity.md), a heavy organization (CAPACITY_CONTACTS,
 * 10,000 contacts) lists its most expensive page (GET /v1/contacts?limit=100) while a light one issues one-page
 * lists (GET /v1/contacts?limit=25 of 200 contacts) at a fixed rate.
 *   1. capacity: the heavy list alone from CAPACITY_BASE_CLIENTS (16) clients: 2xx per second;
 *   2. overload: the heavy list from CAPACITY_CLIENTS (1,000) clients that never back off, beside the light one; their
 *      connections open before it begins (flood.ts; CAPACITY_COLD_CONNECTIONS=1: opened in its first instant).
 * Reports the light organization's p50/p99 and 5xx, and the goodput (2xx/s of both) against the measured capacity.
 * Targets (issue 22): light p99 ≤ 100 ms, no 5xx, goodput ≥ 80 % of capacity. Writes bench-results/capacity.json;
 * `npm run bench:report` adds it to BENCHMARKS.md. Knobs: CAPACITY_SECONDS (20), CAPACITY_LIGHT_RATE (20/s),
 * CAPACITY_TENANT_CONCURRENCY (the gateway's TENANT_CONCURRENCY; its default when unset), CAPACITY_CRM_CALLS_PER_ORG
 * (the CRM's CRM_CALL_CONCURRENCY_PER_ORG, its default when unset; 0: no per-organization share), CAPACITY_PROFILE=1 (every
 * process writes spans; the light requests' wait is split by where it was spent: capacity-profile.ts. Tracing costs
 * CPU, so a profiled run's latencies are not comparable with an unprofiled one's), BENCH_CPU_PROFILE=<dir> (CPU
 * profiles of the gateway and the CRM replicas). Also reports the CPU of the gateway, the CRM replicas and its own
 * load generator over the overload, and the machine's load average.
 */
import type { Agent } from 'node:http';
import { loadavg } from 'node:os';
import { machineInfo } from './config';
import { DEFAULT_TENANT_CONCURRENCY } from '../../gateway/src/config';
import { waitProfile, type WaitProfile } from './capacity-profile';
import { withCpuShare, type CpuShare } from './cpu-share';
import { openFlood, type FloodResult } from './flood';
import { cpuProfileEnv, startOwnSystem, type OwnSystem } from './own-system';
import { openPool, runPacedLoad } from './paced-load';
import { cpuSecondsOf } from './proc-stats';
import { settle } from './quiet';
import { writeResult } from './results';
import { seedContacts } from './seed';
import { round, sleep } from './stats';

const HEAVY_PATH = '/v1/contacts?limit=100';
const LIGHT_PATH = '/v1/contacts?limit=25';
const LIGHT_CONNECTIONS = 16;

export interface Flood {
  clients: number;
  seconds: number;
  /** Requests per second over all clients, or null: as fast as answered. */
  rate: number | null;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
  /** 2xx per second. */
  goodput: number;
  p50_ms: number | null;
  p99_ms: number | null;
  /** Paced runs: how late this process itself sent the requests (p99, ms), counted in the latencies. */
  send_lag_p99_ms?: number | null;
  /** Paced runs: p99 of the answers due a second or more after the overload began (ms). */
  p99_after_first_second_ms?: number | null;
  /** Paced runs: the slowest answers and when each was due (ms from the start of the overload). */
  slowest?: Array<{ due_ms: number; latency_ms: number }>;
  errors: number;
  fivexx: number;
}

export interface CapacityFigures {
  measured_at: string;
  machine: ReturnType<typeof machineInfo>;
  tenant_concurrency: string;
  /** The CRM's CRM_CALL_CONCURRENCY_PER_ORG ('default' when not set by the bench). */
  crm_calls_per_org?: string;
  heavy_contacts: number;
  heavy_path: string;
  light_path: string;
  /** The heavy list alone, every client served. */
  capacity: Flood;
  overload: { heavy: Flood; light: Flood };
  /**
   * The heavy organization's connections were open before its flood began (flood.ts); false: opened in its first
   * instant (CAPACITY_COLD_CONNECTIONS=1, and every result before 2026-11-27 22:00 UTC).
   */
  heavy_connections_open_first?: boolean;
  /** The light organization's requests were paced open loop (pacedLight); older results: autocannon's rate. */
  light_paced?: boolean;
  /** (heavy 2xx + light 2xx) per second under overload / capacity. */
  goodput_ratio: number | null;
  /** The machine's 1-minute load average when the overload began (the machine is shared; 2 cores). */
  load_average?: number;
  /**
   * CPU over the overload, in % of one core: the gateway, each CRM replica, and the benchmark's own load generator
   * (this process and the flood's own: flood.ts) — on 2 shared cores, what the system under test did not get.
   */
  overload_cpu?: CpuShare['cpu_percent'];
  /** With CAPACITY_PROFILE=1: where the light organization's requests waited under overload. */
  light_wait_profile?: WaitProfile;
  /** The same, of the requests that began in the overload's first second. */
  light_wait_profile_first_second?: WaitProfile;
}

/** Answers with a 5xx status among `statuses` (answers by status). */
const fivexxOf = (statuses: Record<string, number>): number =>
  Object.entries(statuses).reduce((sum, [status, count]) => sum + (Number(status) >= 500 ? count : 0), 0);

const log = (line: string) => console.log(`[bench:capacity ${new Date().toISOString().slice(11, 19)}] ${line}`);
const numberEnv = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

/** The heavy organization's clients: `clients` connections calling `path` that never back off (flood.ts). */
const heavyFlood = (own: OwnSystem, key: string, path: string, clients: number, connectFirst: boolean) =>
  openFlood({
    baseUrl: own.system.baseUrl,
    clients,
    connectPath: '/healthz',
    request: { method: 'GET', path, headers: { authorization: `Bearer ${key}` } },
    connectFirst,
  });

/** `clients` clients calling `path` for `seconds`, their connections open first. */
async function drive(own: OwnSystem, key: string, path: string, clients: number, seconds: number): Promise<Flood> {
  const flood = await heavyFlood(own, key, path, clients, true);
  try {
    return floodFigures(clients, await flood.run(seconds));
  } finally {
    await flood.close();
  }
}

const floodFigures = (clients: number, result: FloodResult): Flood => ({
  clients,
  seconds: result.seconds,
  rate: null,
  statuses: result.statuses,
  goodput: result.goodput,
  p50_ms: result.p50_ms,
  p99_ms: result.p99_ms,
  errors: result.errors,
  fivexx: fivexxOf(result.statuses),
});

/** One page of the light organization's contacts, with its key. */
const lightRequest = (key: string) => ({ method: 'GET', path: LIGHT_PATH, headers: { authorization: `Bearer ${key}` } }) as const;

/**
 * The light organization's requests, open loop at an even pace, in this thread (the heavy load is in a worker of its
 * own): each due at its time whatever the earlier answers did, its latency counted from then. Up to LIGHT_CONNECTIONS
 * at once, so that its own pool adds no wait unless answers take longer than LIGHT_CONNECTIONS / rate. (autocannon's
 * rate had each connection send its second's share back to back at the start of every second, measured each request
 * from when it was sent, and dropped the requests a slow second left unsent.)
 */
async function pacedLight(own: OwnSystem, key: string, seconds: number, rate: number, agent: Agent): Promise<Flood> {
  const result = await runPacedLoad({
    baseUrl: own.system.baseUrl,
    request: lightRequest(key),
    clients: LIGHT_CONNECTIONS,
    seconds,
    rate,
    agent,
  });
  return {
    clients: result.clients,
    seconds: result.seconds,
    rate,
    statuses: result.statuses,
    goodput: result.rps,
    p50_ms: result.p50_ms,
    p99_ms: result.p99_ms,
    send_lag_p99_ms: result.send_lag_p99_ms,
    p99_after_first_second_ms: result.p99_after_first_second_ms,
    slowest: result.slowest,
    errors: result.errors,
    fivexx: fivexxOf(result.statuses),
  };
}

async function main(): Promise<void> {
  const seconds = numberEnv('CAPACITY_SECONDS', 20);
  const clients = numberEnv('CAPACITY_CLIENTS', 1_000);
  const baseClients = numberEnv('CAPACITY_BASE_CLIENTS', 16);
  const lightRate = numberEnv('CAPACITY_LIGHT_RATE', 20);
  const heavyContacts = numberEnv('CAPACITY_CONTACTS', 10_000);
  const concurrency = process.env.CAPACITY_TENANT_CONCURRENCY;
  const callsPerOrg = process.env.CAPACITY_CRM_CALLS_PER_ORG;
  const profile = process.env.CAPACITY_PROFILE === '1';
  const coldConnections = process.env.CAPACITY_COLD_CONNECTIONS === '1';
  // BENCH_CPU_PROFILE=<dir>: the gateway and each CRM replica also write a CPU profile of the whole run there.
  const profiled = cpuProfileEnv(['gateway', 'crm']);
  const own = await startOwnSystem({
    crmReplicas: 2,
    webhooksReplicas: 1,
    // The bulkheads on (own-system turns them off for the other benches); the default sizes unless told otherwise.
    envFor: {
      gateway: { TENANT_CONCURRENCY: concurrency ?? DEFAULT_TENANT_CONCURRENCY, ...profiled?.gateway },
      crm: { ...(callsPerOrg === undefined ? {} : { CRM_CALL_CONCURRENCY_PER_ORG: callsPerOrg }), ...profiled?.crm },
    },
    traces: profile,
  });
  try {
    const light = await own.newOrg('Light tenant');
    log(`seeding ${heavyContacts} contacts for the heavy organization, 200 for the light one`);
    await seedContacts(own.contacts, own.orgId, heavyContacts);
    await seedContacts(own.contacts, light.orgId, 200);
    // Warm-up: connections, the key cache, the JIT.
    await drive(own, own.key, HEAVY_PATH, baseClients, 3);
    log(`capacity: ${HEAVY_PATH} alone from ${baseClients} clients for ${seconds} s`);
    await settle(log, 'capacity');
    const capacity = await drive(own, own.key, HEAVY_PATH, baseClients, seconds);
    await sleep(2_000);
    // Both organizations' clients have their connections open before the flood begins, as clients being served
    // have them (CAPACITY_COLD_CONNECTIONS=1: the heavy organization's thousand open in its first instant instead).
    const flood = await heavyFlood(own, own.key, HEAVY_PATH, clients, !coldConnections);
    const lightPool = await openPool(own.system.baseUrl, lightRequest(light.key), LIGHT_CONNECTIONS);
    await sleep(2_000);
    await settle(log, 'overload');
    log(`overload: ${HEAVY_PATH} from ${clients} clients, ${LIGHT_PATH} of another organization at ${lightRate}/s`);
    const overloadFrom = Date.now();
    const [loadAverage = 0] = loadavg();
    const clientCpuBefore = process.cpuUsage();
    const floodCpuBefore = flood.pid ? cpuSecondsOf(flood.pid) : null;
    const overload = await withCpuShare(own, ['gateway', 'crm-1', 'crm-2'], () =>
      Promise.all([flood.run(seconds), pacedLight(own, light.key, seconds, lightRate, lightPool)]),
    );
    lightPool.destroy();
    const floodCpu = flood.pid && floodCpuBefore !== null ? (cpuSecondsOf(flood.pid) ?? floodCpuBefore) - floodCpuBefore : 0;
    await flood.close();
    const heavy = floodFigures(clients, overload.result[0]);
    const lightLoad = overload.result[1];
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const overloadCpu = {
      ...overload.cpu_percent,
      load_generator: Math.round(((clientCpu.user + clientCpu.system) / 1e4 + floodCpu * 100) / ((Date.now() - overloadFrom) / 1000)),
    };
    const goodput = heavy.goodput + lightLoad.goodput;
    // The span files are written every 200 ms: wait for the last ones.
    if (profile) await sleep(2_000);
    const lightTarget = LIGHT_PATH.split('?')[1] ?? '';
    const lightWait = profile ? waitProfile(own.logDir, lightTarget, overloadFrom, Date.now()) : undefined;
    const lightWaitFirst = profile ? waitProfile(own.logDir, lightTarget, overloadFrom, overloadFrom + 1_000) : undefined;
    const figures: CapacityFigures = {
      measured_at: new Date().toISOString(),
      machine: machineInfo(),
      tenant_concurrency: concurrency ?? 'default',
      crm_calls_per_org: callsPerOrg ?? 'default',
      heavy_contacts: heavyContacts,
      heavy_path: HEAVY_PATH,
      light_path: LIGHT_PATH,
      capacity,
      overload: { heavy, light: lightLoad },
      light_paced: true,
      heavy_connections_open_first: !coldConnections,
      load_average: round(loadAverage, 1),
      overload_cpu: overloadCpu,
      goodput_ratio: capacity.goodput > 0 ? round(goodput / capacity.goodput, 2) : null,
      ...(lightWait ? { light_wait_profile: lightWait } : {}),
      ...(lightWaitFirst ? { light_wait_profile_first_second: lightWaitFirst } : {}),
    };
    writeResult('capacity', figures);
    console.table({
      'capacity (heavy alone) 2xx/s': capacity.goodput,
      'overload heavy 2xx/s': heavy.goodput,
      'overload heavy statuses': JSON.stringify(heavy.statuses),
      'overload heavy 5xx': heavy.fivexx,
      'light p50 ms': lightLoad.p50_ms,
      'light p99 ms': lightLoad.p99_ms,
      'light statuses': JSON.stringify(lightLoad.statuses),
      'light 5xx': lightLoad.fivexx,
      'light 2xx/s': lightLoad.goodput,
      'goodput / capacity': figures.goodput_ratio,
      'load average (1 min) at the overload': figures.load_average,
      'CPU % of a core under overload': JSON.stringify(overloadCpu),
    });
    if (lightWait) {
      log(`light requests traced: ${lightWait.requests}; where they waited (ms):`);
      console.table(lightWait.segments);
      log(`of them in the overload's first second: ${lightWaitFirst?.requests}`);
      console.table(lightWaitFirst?.segments);
    }
  } finally {
    await own.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
