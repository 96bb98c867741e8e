/**
 * `npm start`: builds, installs and starts the local Kafka and SecantusDB (unless KAFKA_BROKERS / MONGODB_URI point
 * at existing servers), starts every service and the gateway under a supervisor (a crashed process is restarted
 * with back-off, the others keep serving), seeds a demo organization and key when there is none, prints the base
 * URL and the key, and stops everything on Ctrl-C. `npm start -- status` lists the processes of the running one;
 * `npm start -- stop` stops it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { ensureDemoKey } from './lib/demo-key';
import { localStackRunning, REPO_ROOT, startLocalStack, stopLocalStack } from './lib/local-stack';
import { createProgress, formatDuration, type Progress } from './lib/progress';
import { formatStatus, probeRunState, readRunState, removeRunState, writeRunState } from './lib/run-state';
import { LOCAL_SECRETS_FILE, localSecrets } from './lib/secrets';
import { startSystem, type SystemOptions } from './lib/system';

const USAGE = `Usage: npm start [-- status [--json] | stop | --help]

  npm start                  builds, starts Kafka + SecantusDB + every service, prints the base URL and a key; Ctrl-C stops
  npm start -- status        the running processes: pid, state, restarts, uptime, ports, health (--json for scripts)
  npm start -- stop          stops a running npm start (as Ctrl-C in its terminal would)

Ports: PORT (8080), CRM_GRPC_PORT (50051), MESSAGING_GRPC_PORT (50052), AGENTS_GRPC_PORT (50053), WEBHOOKS_GRPC_PORT
(50054), MESSAGING_HTTP_PORT (8082), SIM_PORT (8090), METRICS_PORT (9464, 0 = off); replicas: CRM_REPLICAS,
WEBHOOKS_REPLICAS, MESSAGING_REPLICAS, AGENTS_REPLICAS (each further replica 10 ports higher). CRM_NAMESPACE: database
names and events topic of their own (crm_<namespace>, …) when the servers are shared.`;

const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const replicaPorts = (first: number, replicas: number) => Array.from({ length: Math.max(1, replicas) }, (_, index) => first + index * 10);
const METRICS_OFFSET = { gateway: 0, crm: 1, webhooks: 2, messaging: 3, agents: 4 } as const;
const metricsBase = port('METRICS_PORT', 9464);

/** `gateway :9464, crm :9465, …` (Prometheus text at http://127.0.0.1:<port>/metrics), or how to turn them on. */
function metricsLine(metrics: Record<string, string>): string {
  const ports = Object.entries(metrics).map(([name, url]) => `${name} :${new URL(url).port}`);
  return ports.length > 0 ? `${ports.join(', ')} (http://127.0.0.1:<port>/metrics)` : 'off (METRICS_PORT=0)';
}

/** The port plan from the environment (defaults above; replicas 10 apart). */
function portPlan(): Omit<SystemOptions, 'stack' | 'secrets' | 'logDir'> {
  return {
    gatewayPort: port('PORT', 8080),
    crmPorts: replicaPorts(port('CRM_GRPC_PORT', 50051), port('CRM_REPLICAS', 1)),
    webhooksPorts: replicaPorts(port('WEBHOOKS_GRPC_PORT', 50054), port('WEBHOOKS_REPLICAS', 1)),
    messagingPorts: replicaPorts(port('MESSAGING_GRPC_PORT', 50052), port('MESSAGING_REPLICAS', 1)).map((grpc, index) => ({
      grpc,
      http: port('MESSAGING_HTTP_PORT', 8082) + index * 10,
    })),
    agentsPorts: replicaPorts(port('AGENTS_GRPC_PORT', 50053), port('AGENTS_REPLICAS', 1)),
    simulatorPort: port('SIM_PORT', 8090),
    // Prometheus endpoints: 9464 the gateway, then crm, webhooks, messaging, agents; replicas 10 apart. METRICS_PORT=0 turns them off.
    metricsPort: (service, replica) => (metricsBase === 0 ? 0 : metricsBase + METRICS_OFFSET[service] + replica * 10),
  };
}

const portFree = (candidate: number) =>
  new Promise<boolean>((done) => {
    const server = createServer()
      .once('error', () => done(false))
      .listen(candidate, '127.0.0.1', () => server.close(() => done(true)));
  });

/** Refuses to start over a port another program holds, naming the variable that moves it. */
async function checkPorts(plan: ReturnType<typeof portPlan>): Promise<void> {
  const named: Array<[string, number]> = [
    ['PORT', plan.gatewayPort],
    ['SIM_PORT', plan.simulatorPort],
    ...plan.crmPorts.map((p): [string, number] => ['CRM_GRPC_PORT', p]),
    ...plan.webhooksPorts.map((p): [string, number] => ['WEBHOOKS_GRPC_PORT', p]),
    ...plan.messagingPorts.flatMap(({ grpc, http }): Array<[string, number]> => [
      ['MESSAGING_GRPC_PORT', grpc],
      ['MESSAGING_HTTP_PORT', http],
    ]),
    ...plan.agentsPorts.map((p): [string, number] => ['AGENTS_GRPC_PORT', p]),
  ];
  for (const [variable, candidate] of named)
    if (!(await portFree(candidate))) throw new Error(`port ${candidate} is already in use: set ${variable} to another port`);
}

/** `npm run build` (tsc, incremental), its output shown only when it fails. */
function build(progress: Progress): Promise<void> {
  progress.step('Building (tsc into dist/)', 'build');
  const child = spawn('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((done, fail) =>
    child.once('close', (code) => (code === 0 ? done(progress.done()) : fail(new Error(`npm run build failed:\n${output}`)))),
  );
}

/** How long `npm ci` took before this process (deploy/ensure-deps.mjs records it), when it ran just now. */
function installSeconds(startedAt: number): number | undefined {
  const file = resolve(REPO_ROOT, '.local/run/install.json');
  if (!existsSync(file)) return undefined;
  const { seconds, at } = JSON.parse(readFileSync(file, 'utf8')) as { seconds: number; at: number };
  return startedAt - at < 60_000 ? seconds : undefined;
}

async function start(): Promise<void> {
  const running = readRunState();
  if (running) throw new Error(`npm start is already running (pid ${running.pid}, ${running.baseUrl}): npm start -- status, or -- stop`);
  const startedAt = Date.now();
  const progress = createProgress();
  const plan = portPlan();
  await checkPorts(plan);
  await build(progress);

  const external = Boolean(process.env.MONGODB_URI && process.env.KAFKA_BROKERS);
  const stackWasRunning = external || (await localStackRunning());
  progress.step(
    stackWasRunning
      ? 'Using the running Kafka and MongoDB-compatible servers'
      : 'Starting Kafka and SecantusDB (the first run installs them: about 8 minutes on 2 cores, once per machine)',
    'stack',
  );
  const stack = await startLocalStack({
    onLine: (line) => progress.detail(line),
    env: { STACK_PROGRESS_SECONDS: process.stdout.isTTY ? '2' : '15' },
  });
  progress.done();

  const logDir = resolve(REPO_ROOT, '.local/logs');
  let onChange = () => undefined as void;
  progress.step('Starting the services and the gateway', 'services');
  const system = await startSystem({
    ...plan,
    stack,
    // CRM_NAMESPACE: databases and topic of their own (crm_<namespace>, …) on servers shared with other runs.
    namespace: process.env.CRM_NAMESPACE || undefined,
    secrets: localSecrets(resolve(REPO_ROOT, LOCAL_SECRETS_FILE)),
    logDir,
    env: { WEBHOOK_ALLOWED_HOSTS: process.env.WEBHOOK_ALLOWED_HOSTS ?? '127.0.0.1,localhost,::1' },
    supervisor: { log: (line) => console.error(line), onChange: () => onChange() },
  }).catch(async (error: unknown) => {
    if (!stackWasRunning) await stopLocalStack();
    throw error;
  });
  progress.done(`${system.processes.length} processes`);
  const state = { pid: process.pid, startedAt, baseUrl: system.baseUrl, ports: plan };
  onChange = () => writeRunState(state, system);
  onChange();

  progress.step('Demo organization and key', 'demo');
  const demo = await ensureDemoKey(system.baseUrl, system.env);
  progress.done(demo.created ? 'created' : 'kept');

  const install = installSeconds(startedAt);
  const steps = [...(install === undefined ? [] : [{ label: 'npm ci', seconds: install }]), ...progress.durations];
  const total = (Date.now() - startedAt) / 1000 + (install ?? 0);
  console.log(`
  CRM API is running (${formatDuration(total)} in all: ${steps.map((step) => `${step.label} ${formatDuration(step.seconds)}`).join(', ')})

    Base URL   ${system.baseUrl}
    API key    ${demo.api_key}${demo.created ? '   (new demo organization)' : ''}
    Docs       ${system.baseUrl}/api/docs
    Logs       ${logDir}
    Providers  ${system.env.SIM_URL} (simulator: npm run sim -- inbound --from +15550001111 --text "hi")
    Metrics    ${metricsLine(system.metrics)}
    Processes  npm start -- status   (a crashed process is restarted; only Ctrl-C stops them all)

    curl -H "Authorization: Bearer ${demo.api_key}" ${system.baseUrl}/v1/contacts
    curl -H "Authorization: Bearer ${demo.api_key}" ${system.baseUrl}/v1/conversations

  Press Ctrl-C to stop.`);

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    onChange = () => undefined;
    await system.stop();
    removeRunState();
    if (!stackWasRunning) await stopLocalStack();
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

async function status(json: boolean): Promise<number> {
  const state = readRunState();
  if (!state) {
    console.error('npm start is not running');
    return 1;
  }
  const processes = await probeRunState(state);
  console.log(json ? JSON.stringify({ ...state, processes }) : formatStatus(state, processes));
  return processes.every((process) => process.healthy) ? 0 : 3;
}

async function stopRunning(): Promise<number> {
  const state = readRunState();
  if (!state) {
    console.error('npm start is not running');
    return 1;
  }
  process.kill(state.pid, 'SIGINT');
  const deadline = Date.now() + 90_000;
  while (readRunState() && Date.now() < deadline) await new Promise((done) => setTimeout(done, 250));
  if (readRunState()) throw new Error(`npm start (pid ${state.pid}) did not stop within 90 s`);
  console.log(`stopped npm start (pid ${state.pid})`);
  return 0;
}

async function main(args: string[]): Promise<number | undefined> {
  const [command, ...rest] = args;
  const unknown = rest.filter((arg) => !(command === 'status' && arg === '--json'));
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown[0]} for ${command} (npm start -- --help)`);
  switch (command) {
    case undefined:
      return start().then(() => undefined);
    case 'status':
      return status(rest.includes('--json'));
    case 'stop':
      return stopRunning();
    case '--help':
    case '-h':
    case 'help':
      console.log(USAGE);
      return 0;
    default:
      throw new Error(`unknown command '${command}' (npm start -- --help)`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (error: unknown) => {
    console.error(`\n${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
