/**
 * `npm run bench`: one run, one machine, side by side — a bare Fastify route (the ceiling), a one-process Fastify +
 * mongodb peer, and the project through its gateway, then webhooks, memory and idle CPU, and start-up (when
 * test/bench/startup.ts exists). Writes bench-results/*.json, renders BENCHMARKS.md from them, prints it.
 * Knobs: test/bench/config.ts (BENCH_SECONDS=2 for a quick, noisy run).
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import { apiClient } from './api-client';
import { startBenchServer, type BenchServer } from './bench-server';
import { loadBenchConfig, machineInfo, type BenchConfig } from './config';
import type { RouteFigures } from './http-scenarios';
import { startOwnSystem, type OwnSystem } from './own-system';
import { stackProcesses, type Watched } from './proc-stats';
import { renderReport } from './report';
import { measureResources } from './resources';
import { measuredCommit, readResults, writeResult } from './results';
import { measureRouteSet, probeRouteSet, type ProbedCost } from './route-set';
import { seedContacts, seedDeals } from './seed';
import { measureScaleOut } from './scale-out';
import { measureStartupIfPresent } from './startup-hook';
import { sleep } from './stats';
import { measureWebhooks } from './webhooks';

const log = (line: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function main(): Promise<void> {
  const config = loadBenchConfig();
  const started = Date.now();
  // Timing figures need a quiet machine: the load average says whether it was (2 cores: above 2, others ran).
  const loadAtStart = loadavg()[0] ?? NaN;
  log('probing the commands of one request of each route on a system with diagnostics on');
  const probed = await probeCosts(config);
  log(`starting a system of ${config.crmReplicas} crm + ${config.webhooksReplicas} webhooks replicas on the local stack`);
  const own = await startOwnSystem({ crmReplicas: config.crmReplicas, webhooksReplicas: config.webhooksReplicas });
  const servers: BenchServer[] = [];
  try {
    const seeded = await seed(own, config);
    await measureHttp(own, config, seeded, servers, probed);
    // A development run that skips a part (BENCH_WEBHOOK_SCENARIOS=none, BENCH_STARTUP=0) keeps its last figures.
    if (config.webhookScenarios.length > 0) writeResult('webhooks', await measureWebhooks(own, config, log));
    for (const server of servers.splice(0)) await server.stop();
    // Let the last deliveries, relay passes, consumer commits and the collections after the load finish before
    // calling the stack idle: the figure is of a system with no traffic, not of its last seconds of work.
    await sleep(10_000);
    log(`idle: reading CPU of every process for ${config.idleSeconds} s with no traffic`);
    const watched: Watched[] = [
      // The provider simulator stands in for the messaging providers: no deployment runs it, so it has no target.
      ...own.system.processes.map((process) => ({ name: process.name, pid: process.child.pid ?? 0, node: process.name !== 'simulator' })),
      ...stackProcesses(),
    ];
    writeResult('resources', await measureResources(watched, config.idleSeconds));
  } finally {
    for (const server of servers) await server.stop().catch(() => undefined);
    log('stopping the system and dropping its databases and topic');
    await own.stop();
  }
  // After the system is gone: systems of their own, competing with nothing.
  if (config.scaleOut) writeResult('scaleout', await measureScaleOut(config, log));
  // After the system is gone, so that the services started for start-up timing compete with nothing.
  log('start-up: test/bench/startup.ts measureStartup(), when present');
  if (config.startup) writeResult('startup', await measureStartupIfPresent());
  writeResult('run', {
    measured_at: new Date(started).toISOString(),
    ...measuredCommit(),
    duration_s: Math.round((Date.now() - started) / 1000),
    machine: machineInfo(),
    config,
    seeded: { contacts: config.contacts, deals: config.deals },
    load_average: { start: Math.round(loadAtStart * 100) / 100, end: Math.round((loadavg()[0] ?? NaN) * 100) / 100 },
  });
  const report = renderReport(readResults());
  writeFileSync(resolve(REPO_ROOT, 'BENCHMARKS.md'), report);
  console.log(`\n${report}`);
  log(`written bench-results/*.json and BENCHMARKS.md in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * The database commands and gRPC bytes of one request of each route, on a small system of its own with diagnostics
 * on: they turn on the driver's command monitoring in every process (a CPU cost on every command), so the measured
 * system runs without them, as production does.
 */
async function probeCosts(config: BenchConfig): Promise<Map<string, ProbedCost>> {
  const own = await startOwnSystem({ crmReplicas: 1, webhooksReplicas: 1, diagnostics: true });
  try {
    const seeded = await seed(own, config);
    return await probeRouteSet({ ceiling: '', peer: '', gateway: own.system.baseUrl, key: own.key, ...seeded });
  } finally {
    await own.stop();
  }
}

async function seed(own: OwnSystem, config: BenchConfig): Promise<{ contactIds: string[]; dealIds: string[] }> {
  log(`seeding ${config.contacts} contacts (driver) and ${config.deals} deals (API)`);
  const contactIds = await seedContacts(own.contacts, own.orgId, config.contacts);
  const dealIds = await seedDeals(apiClient(own.system.baseUrl, own.key), config.deals);
  return { contactIds, dealIds };
}

async function measureHttp(
  own: OwnSystem,
  config: BenchConfig,
  seeded: { contactIds: string[]; dealIds: string[] },
  servers: BenchServer[],
  probed: Map<string, ProbedCost>,
): Promise<void> {
  const logFile = (name: string) => resolve(own.logDir, `${name}.log`);
  servers.push(await startBenchServer('ceiling', 'bare.server.ts', {}, logFile('ceiling'), '/ping'));
  const dbEnv = {
    MONGODB_URI: own.system.env.MONGODB_URI,
    CRM_DB_NAME: own.system.env.CRM_DB_NAME,
    GATEWAY_DB_NAME: own.system.env.GATEWAY_DB_NAME,
  };
  servers.push(await startBenchServer('peer', 'peer.server.ts', dbEnv, logFile('peer'), '/v1/contacts'));
  const [ceiling, peer] = servers as [BenchServer, BenchServer];
  // The database and Kafka: the project publishes each write's events to Kafka (the outbox relay), the peer leaves
  // them in its documents, so the broker's CPU is part of what a project write costs.
  const stack = stackProcesses();
  const serving = own.system.processes
    .filter((process) => /^(gateway|crm)(-\d+)?$/.test(process.name))
    .map((process) => ({ name: process.name, pid: process.child.pid ?? 0, node: true }));
  const routes: RouteFigures[] = await measureRouteSet(
    {
      ceiling: ceiling.baseUrl,
      peer: peer.baseUrl,
      gateway: own.system.baseUrl,
      key: own.key,
      ...seeded,
      peerProcesses: [{ name: 'peer', pid: peer.pid, node: true }, ...stack],
      projectProcesses: [...serving, ...stack],
    },
    config,
    log,
  );
  const withProbes = routes.map((figures) => {
    const cost = figures.side === 'project' ? probed.get(figures.route) : undefined;
    return cost && figures.cost ? { ...figures, cost: { ...figures.cost, ...cost } } : figures;
  });
  writeResult('http', { routes: withProbes });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
