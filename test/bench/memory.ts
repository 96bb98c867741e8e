/**
 * `npm run bench:memory`: RSS of the gateway and the CRM at ready and at their peak (VmHWM) under load, beside
 * throughput and CPU per request, to judge a memory change or a V8 setting A/B. Starts a system of its own (1 gateway,
 * 1 CRM replica), seeds 1,000 contacts, then drives 16 clients at `GET /v1/contacts` and `POST /v1/contacts` for
 * BENCH_SECONDS (10) each. BENCH_V8_FLAGS sets V8 flags in both processes (through v8-flags.mjs, so also the ones
 * NODE_OPTIONS refuses): `BENCH_V8_FLAGS=--heap-growing-percent=50 npm run bench:memory`; BENCH_NODE_OPTIONS adds
 * node options to both (`BENCH_NODE_OPTIONS=--max-semi-space-size=8`). Prints one JSON line and
 * writes it to .local/memory/<time>.json. Compare runs side by side in one window, never across days.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import { loadBenchConfig } from './config';
import { runLoad } from './load';
import { startOwnSystem } from './own-system';
import { cpuSecondsOf, memoryOf } from './proc-stats';
import { routeScenarios } from './route-set';
import { seedContacts } from './seed';
import { sleep } from './stats';

const ROUTES = ['GET /v1/contacts', 'POST /v1/contacts'];
const CLIENTS = 16;
const PROFILED = ['gateway', 'crm'] as const;

async function main(): Promise<void> {
  const config = loadBenchConfig();
  const flags = process.env.BENCH_V8_FLAGS ?? '';
  const env = {
    NODE_OPTIONS: `--import ${resolve(__dirname, 'v8-flags.mjs')} ${process.env.BENCH_NODE_OPTIONS ?? ''}`,
    BENCH_V8_FLAGS: flags,
  };
  const own = await startOwnSystem({ crmReplicas: 1, webhooksReplicas: 1, envFor: { gateway: env, crm: env } });
  const processes = PROFILED.map((name) => ({ name, pid: own.system.processes.find((p) => p.name === name)?.child.pid ?? 0 }));
  const memory = () => Object.fromEntries(processes.map(({ name, pid }) => [name, memoryOf(pid)]));
  const result: Record<string, unknown> = { measured_at: new Date().toISOString(), v8_flags: flags, seconds: config.seconds };
  try {
    await sleep(3_000);
    result.ready = memory();
    const contactIds = await seedContacts(own.contacts, own.orgId, 1_000);
    const scenarios = routeScenarios({ ceiling: '', peer: '', gateway: own.system.baseUrl, key: own.key, contactIds, dealIds: [] });
    for (const route of ROUTES) {
      const scenario = scenarios.find((candidate) => candidate.side === 'project' && candidate.route === route);
      if (!scenario) throw new Error(`no scenario for ${route}`);
      const cpuBefore = processes.map(({ pid }) => cpuSecondsOf(pid) ?? 0);
      const run = await runLoad({ baseUrl: scenario.baseUrl, request: scenario.request, clients: CLIENTS, seconds: config.seconds });
      const cpuMsPerRequest = Object.fromEntries(
        processes.map(({ name, pid }, i) => {
          const seconds = (cpuSecondsOf(pid) ?? 0) - (cpuBefore[i] ?? 0);
          return [name, Math.round(((seconds * 1000) / Math.max(1, run.requests)) * 100) / 100];
        }),
      );
      result[route] = { rps: run.rps, p50_ms: run.p50_ms, p99_ms: run.p99_ms, cpu_ms_per_request: cpuMsPerRequest, memory: memory() };
    }
  } finally {
    await own.stop();
  }
  const line = JSON.stringify(result);
  const dir = resolve(REPO_ROOT, '.local/memory');
  mkdirSync(dir, { recursive: true });
  writeFileSync(resolve(dir, `${String(result.measured_at).replace(/[:.]/g, '-')}.json`), `${line}\n`);
  console.log(line);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
