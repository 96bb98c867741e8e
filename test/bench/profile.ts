/**
 * `npm run profile -- <route>`: a flame profile of the gateway and the CRM service under load on one route.
 * Starts a system of its own (1 gateway, 1 CRM replica), seeds BENCH_CONTACTS (1,000) contacts, warms the route up,
 * then CPU-profiles both processes (V8's sampling profiler, 1 ms) only while 16 clients load the route for
 * BENCH_SECONDS (10). Writes <process>-<pid>.cpuprofile files — open them in https://www.speedscope.app or Chrome
 * DevTools (Performance → Load profile) — and summary.json (self time by package and by function) into
 * .local/profiles/<route>-<time>/, copies the summary to bench-results/profile-<route>.json for BENCHMARKS.md, and
 * prints it. <route>: list | get | create | patch (GET /v1/contacts, GET /v1/contacts/{id}, POST /v1/contacts,
 * PATCH /v1/deals/{id}). BENCH_NODE_OPTIONS adds node options to both profiled processes (an A/B of a V8 setting:
 * `BENCH_NODE_OPTIONS=--max-semi-space-size=8 npm run profile -- list`).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import { apiClient } from './api-client';
import { loadBenchConfig } from './config';
import { runLoad } from './load';
import { startOwnSystem } from './own-system';
import { summarizeProfile, type ProfileFigures } from './profile-summary';
import { writeProfile } from './results';
import { routeScenarios } from './route-set';
import { seedContacts, seedDeals } from './seed';
import { sleep } from './stats';

const ROUTES: Record<string, string> = {
  list: 'GET /v1/contacts',
  get: 'GET /v1/contacts/{id}',
  create: 'POST /v1/contacts',
  patch: 'PATCH /v1/deals/{id}',
};
const log = (line: string) => console.log(`[profile ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function main(): Promise<void> {
  const key = process.argv[2] ?? '';
  const route = ROUTES[key];
  if (!route) throw new Error(`usage: npm run profile -- <${Object.keys(ROUTES).join('|')}>`);
  const config = loadBenchConfig();
  const contacts = Number(process.env.BENCH_CONTACTS ?? 1_000);
  const dir = resolve(REPO_ROOT, '.local/profiles', `${key}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const profiled = (name: string) => ({
    NODE_OPTIONS: `--import ${resolve(__dirname, 'cpu-profile.mjs')} ${process.env.BENCH_NODE_OPTIONS ?? ''}`.trim(),
    CPU_PROFILE_DIR: dir,
    CPU_PROFILE_ON_SIGNAL: '1',
    PROFILE_NAME: name,
  });
  const own = await startOwnSystem({ crmReplicas: 1, webhooksReplicas: 1, envFor: { gateway: profiled('gateway'), crm: profiled('crm') } });
  const pids = own.system.processes.filter(({ name }) => name === 'gateway' || name === 'crm').map(({ child }) => child.pid ?? 0);
  try {
    log(`seeding ${contacts} contacts`);
    const contactIds = await seedContacts(own.contacts, own.orgId, contacts);
    const dealIds = key === 'patch' ? await seedDeals(apiClient(own.system.baseUrl, own.key), config.deals) : [];
    const scenario = routeScenarios({ ceiling: '', peer: '', gateway: own.system.baseUrl, key: own.key, contactIds, dealIds }).find(
      (candidate) => candidate.side === 'project' && candidate.route === route,
    );
    if (!scenario) throw new Error(`no scenario for ${route}`);
    const clients = Math.max(...config.clients);
    await runLoad({ baseUrl: scenario.baseUrl, request: scenario.request, clients, seconds: config.warmupSeconds || 3 });
    await sleep(500);
    for (const pid of pids) process.kill(pid, 'SIGUSR2');
    const run = await runLoad({ baseUrl: scenario.baseUrl, request: scenario.request, clients, seconds: config.seconds });
    for (const pid of pids) process.kill(pid, 'SIGUSR2');
    log(`${route}: ${run.rps} req/s with ${clients} clients, p50 ${run.p50_ms} ms, p99 ${run.p99_ms} ms while profiled`);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && (!existsSync(dir) || readdirSync(dir).length < pids.length)) await sleep(200);
    const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
    const processes = Object.fromEntries(
      files.map((file) => {
        const summary = summarizeProfile(resolve(dir, file));
        return [
          file.split('-')[0] ?? file,
          {
            ...summary,
            cpu_ms_per_request: Math.round((summary.busy_ms / Math.max(1, run.requests)) * 1000) / 1000,
            file: `${dir}/${file}`,
          },
        ];
      }),
    );
    const summary: ProfileFigures = {
      route,
      measured_at: new Date().toISOString(),
      clients,
      seconds: config.seconds,
      contacts,
      load: run,
      processes,
    };
    writeFileSync(resolve(dir, 'summary.json'), JSON.stringify(summary, null, 2));
    writeProfile(key, summary);
    console.log(JSON.stringify(summary, null, 2));
    log(`profiles in ${dir} (open the .cpuprofile files in https://www.speedscope.app)`);
  } finally {
    await own.stop();
  }
}

mkdirSync(resolve(REPO_ROOT, '.local'), { recursive: true });
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
