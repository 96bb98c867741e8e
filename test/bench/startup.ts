/**
 * Start-up cost of each process, run both ways: `source` (node with tsx's loader on the TypeScript sources, the
 * development opt-in CRM_RUN_FROM_SOURCE=1) and `compiled` (plain node on `npm run build`'s dist/, as tests,
 * `npm start` and the image run). Ready means gRPC health SERVING for a service and /readyz 200 for the gateway;
 * RSS (VmRSS) and CPU time (user + system) are read from /proc right after ready. On a busy machine the wall
 * time mostly measures the other load; the CPU time is what the start-up itself cost. Writes
 * bench-results/startup.json.
 *
 *   npm run build && npx tsx test/bench/startup.ts
 *
 * Needs the local stack (reused when running). The gateway's /readyz calls both services, so compiled ones run
 * beside it while it is measured. The machine is shared: compare the two modes, not runs from different days.
 */
import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { REPO_ROOT, startLocalStack } from '../../deploy/lib/local-stack';
import { freePort } from '../../deploy/lib/ports';
import { startService, type RunMode, type ServiceProcess } from '../../deploy/lib/processes';
import { generateSecrets } from '../../deploy/lib/secrets';
import { operatorEnv } from '../../deploy/lib/system';
import { dropNamespace } from '../support/namespace';

export type StartupProcess = 'crm' | 'webhooks' | 'messaging' | 'gateway';

/** One row per process and mode; times in milliseconds, memory in MB (MiB, as /proc reports it / 1024). */
export interface StartupResult {
  process: StartupProcess;
  mode: RunMode;
  /** Median over the starts of spawn → ready. */
  ready_ms: number;
  /** Median over the starts of the CPU time (user + system) the process had used when ready. */
  cpu_ms: number;
  /** Median over the starts of VmRSS right after ready. */
  rss_mb: number;
  /** Every start's figures, in order, to show the spread. */
  ready_ms_runs: number[];
  cpu_ms_runs: number[];
  rss_mb_runs: number[];
}

const RUNS = 2;
const MODES: RunMode[] = ['source', 'compiled'];
const ENTRIES: Record<StartupProcess, string> = {
  crm: 'services/crm/src/main.ts',
  webhooks: 'services/webhooks/src/main.ts',
  messaging: 'services/messaging/src/main.ts',
  gateway: 'gateway/src/main.ts',
};
const RESULTS_FILE = resolve(REPO_ROOT, 'bench-results/startup.json');
/** USER_HZ, the unit of /proc/<pid>/stat times: 100 on almost every Linux. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** Measures every process both ways (one unmeasured warm-up start each, then RUNS starts, modes interleaved). */
export async function measureStartup(): Promise<StartupResult[]> {
  const stack = await startLocalStack();
  const namespace = `startup${Date.now().toString(36)}`;
  const ports = { crm: await freePort(), webhooks: await freePort(), messaging: await freePort(), gateway: await freePort() };
  const callbacks = await freePort();
  // Every process it starts logs in to Kafka as the stack's admin (the measured start includes the login).
  const env = {
    ...operatorEnv({
      stack,
      namespace,
      secrets: generateSecrets(),
      gatewayPort: ports.gateway,
      crmPorts: [ports.crm],
      webhooksPorts: [ports.webhooks],
      messagingPorts: [{ grpc: ports.messaging, http: callbacks }],
      agentsPorts: [await freePort()],
      simulatorPort: await freePort(),
    }),
    CRM_GRPC_PORT: String(ports.crm),
    WEBHOOKS_GRPC_PORT: String(ports.webhooks),
    MESSAGING_GRPC_PORT: String(ports.messaging),
    MESSAGING_HTTP_PORT: String(callbacks),
    WEBHOOK_CONSUMER_GROUP: `webhooks-${namespace}`,
    LOG_LEVEL: 'warn',
  };
  const logDir = join(tmpdir(), `crm-${namespace}`);
  const results: StartupResult[] = [];
  // Sequential on purpose: each start has the machine to itself (as far as a shared machine allows).
  for (const name of ['crm', 'webhooks', 'messaging', 'gateway'] as const) {
    // The gateway is ready only once it reaches the services: run them, compiled, for its measurements.
    const helpers =
      name === 'gateway'
        ? await Promise.all((['crm', 'webhooks', 'messaging'] as const).map((helper) => startReady(helper, 'compiled', env, logDir, ports)))
        : [];
    try {
      const samples = new Map<RunMode, Sample[]>(MODES.map((mode) => [mode, []]));
      for (const mode of MODES) await startOnce(name, mode, env, logDir, ports);
      for (let run = 0; run < RUNS; run++)
        for (const mode of MODES) samples.get(mode)?.push(await startOnce(name, mode, env, logDir, ports));
      for (const [mode, runs] of samples) results.push(summarize(name, mode, runs));
    } finally {
      for (const helper of helpers) await helper.service.stop();
    }
  }
  await dropNamespace(env);
  mkdirSync(resolve(RESULTS_FILE, '..'), { recursive: true });
  // The shape `npm run bench` (test/bench/startup-hook.ts) also writes to this file: {measured, result}.
  writeFileSync(
    RESULTS_FILE,
    `${JSON.stringify({ measured: true, measured_at: new Date().toISOString(), starts: RUNS, result: results }, null, 2)}\n`,
  );
  return results;
}

type Ports = Record<StartupProcess, number>;
type Sample = { readyMs: number; cpuMs: number; rssMb: number };

async function startOnce(name: StartupProcess, mode: RunMode, env: NodeJS.ProcessEnv, logDir: string, ports: Ports): Promise<Sample> {
  const { service, readyMs } = await startReady(name, mode, env, logDir, ports);
  const pid = service.child.pid ?? 0;
  const sample = { readyMs, cpuMs: cpuMsOf(pid), rssMb: rssOf(pid) };
  await service.stop();
  return sample;
}

async function startReady(
  name: StartupProcess,
  mode: RunMode,
  env: NodeJS.ProcessEnv,
  logDir: string,
  ports: Ports,
): Promise<{ service: ServiceProcess; readyMs: number }> {
  const startedAt = performance.now();
  const service = startService(name, ENTRIES[name], env, join(logDir, `${name}-${mode}.log`), mode);
  const ready = name === 'gateway' ? () => gatewayReady(ports.gateway) : () => grpcServing(ports[name]);
  try {
    await poll(`${name} (${mode})`, ready, service);
  } catch (error) {
    await service.stop();
    throw error;
  }
  return { service, readyMs: Math.round(performance.now() - startedAt) };
}

/** Polls every 20 ms (the figures are a few hundred ms to seconds; a coarser poll would blur them). */
async function poll(what: string, ready: () => Promise<boolean>, service: ServiceProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) throw new Error(`${what} exited during start-up`);
    if (await ready().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error(`${what} was not ready within 60 s`);
}

type HealthClient = {
  check(
    request: { service: string },
    options: { deadline: number },
    callback: (error: ServiceError | null, response?: { status: string }) => void,
  ): void;
  close(): void;
};
const HealthClient = makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');

async function grpcServing(port: number): Promise<boolean> {
  // A channel of its own per attempt: grpc-js' shared subchannels would wait out a reconnect backoff after the
  // first refused connection, adding up to a second to what is measured.
  const client = new HealthClient(`127.0.0.1:${port}`, credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
  }) as unknown as HealthClient;
  try {
    const status = await new Promise<string | undefined>((done, fail) =>
      client.check({ service: '' }, { deadline: Date.now() + 1_000 }, (error, response) => (error ? fail(error) : done(response?.status))),
    );
    return status === 'SERVING';
  } finally {
    client.close();
  }
}

async function gatewayReady(port: number): Promise<boolean> {
  return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(3_000) })).ok;
}

function rssOf(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return Math.round(kb / 102.4) / 10;
}

/** utime + stime, fields 14 and 15 of /proc/<pid>/stat (after the parenthesised command name), in clock ticks. */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS);
}

function summarize(process: StartupProcess, mode: RunMode, runs: Sample[]): StartupResult {
  const ready = runs.map((run) => run.readyMs);
  const cpu = runs.map((run) => run.cpuMs);
  const rss = runs.map((run) => run.rssMb);
  return {
    process,
    mode,
    ready_ms: median(ready),
    cpu_ms: median(cpu),
    rss_mb: median(rss),
    ready_ms_runs: ready,
    cpu_ms_runs: cpu,
    rss_mb_runs: rss,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
  // One decimal: the mean of two RSS figures must not print as 211.39999999999998.
  return Math.round(value * 10) / 10;
}

if (require.main === module) {
  measureStartup().then(
    (results) => console.table(results.map(({ process, mode, ready_ms, cpu_ms, rss_mb }) => ({ process, mode, ready_ms, cpu_ms, rss_mb }))),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
