import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaLogin, REPO_ROOT } from '../../deploy/lib/local-stack';
import { freePort, freePortWith } from '../../deploy/lib/ports';
import { generateSecrets } from '../../deploy/lib/secrets';
import { systemEnv } from '../../deploy/lib/system';
import { dropNamespace } from '../support/namespace';
import { stackForRun } from '../support/run-stack';
import { crashUnderLoad } from './crash-under-load';
import { shellCommands, type DocCommand } from './support/shell-blocks';
import { ShellSession, type CommandResult } from './shell-session';

/**
 * The documentation's commands, run as written on a fresh copy of the repository (its files as a clone has them:
 * no node_modules, no dist, no .local), in one terminal session per document, README first: the quickstart's
 * `npm start` installs, builds and starts everything there, its `npm run webhooks:listen` receives the events,
 * and every other command runs against that system. Only the ports differ (the defaults may be taken on a shared
 * machine): the test gives npm start free ones and rewrites `127.0.0.1:<default port>` in a command to them.
 */
const DOCUMENTS = ['README.md', 'docs/operations.md', 'tools/dev/README.md'];

/** Commands that are not run, and why: they run the test suites or benchmarks themselves. */
const NOT_RUN: Array<[RegExp, string]> = [
  [/^npm test\b/, 'the whole suite (this test is part of it)'],
  [/^npx vitest\b/, 'a test file of the suite'],
  [/^npm run (bench|chaos)\b/, 'a benchmark or the chaos suite'],
  [/\bnpm run fuzz\b/, 'the contract exploration with random seeds (minutes to an hour)'],
  // .ci/run brings the local Kubernetes up and tests it after npm test (root, minutes, a machine of its own).
  [/^npm run (cluster:|test:cluster)|cluster\.sh|KUBECTL|CRM_GATEWAY_URL/, 'the local cluster (.ci/run)'],
];

/** Processes a person leaves running in a terminal of their own: started in the background, awaited by their line. */
const LONG_RUNNING: Array<[RegExp, RegExp]> = [
  [/^npm start$/, /Press Ctrl-C to stop/],
  [/^npm run webhooks:listen(?! -- --help)/, /^Listening on /m],
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const groupAlive = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Ctrl-C in a background job's terminal: SIGINT to its process group; waits until all of it exited (SIGKILL after 120 s). */
async function interrupt(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (!pid || !groupAlive(pid)) return;
  process.kill(-pid, 'SIGINT');
  for (let waited = 0; groupAlive(pid); waited += 250) {
    if (waited > 120_000) process.kill(-pid, 'SIGKILL');
    await sleep(250);
  }
}

/** The files of a clone: tracked ones and new ones not ignored, as they are in the working tree. */
function copyRepository(target: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(join(REPO_ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(REPO_ROOT, file), join(target, file));
  }
}

describe('the commands of the README and the docs, on a fresh copy of the repository', () => {
  const clone = mkdtempSync(join(tmpdir(), 'crm-clone-'));
  const namespace = `docs${Date.now().toString(36)}`;
  const background: Array<{ command: string; child: ChildProcess; log: string }> = [];
  const results = new Map<string, CommandResult>();
  let env: NodeJS.ProcessEnv;
  let ports: Record<string, number>;
  let shell: ShellSession | undefined;
  let releaseStack: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    copyRepository(clone);
    // Stopped afterwards when this run started it: npm test leaves no server running (CI runs clones in a row).
    const { stack, release } = await stackForRun();
    releaseStack = release;
    // Two replicas of the CRM and of the webhook service, as `CRM_REPLICAS=2 WEBHOOKS_REPLICAS=2 npm start` runs them.
    ports = {
      PORT: await freePort(),
      CRM_GRPC_PORT: await freePortWith([10]),
      WEBHOOKS_GRPC_PORT: await freePortWith([10]),
      MESSAGING_GRPC_PORT: await freePort(),
      AGENTS_GRPC_PORT: await freePort(),
      MESSAGING_HTTP_PORT: await freePort(),
      SIM_PORT: await freePort(),
      METRICS_PORT: await freePortWith([1, 2, 3, 4, 11, 12]),
    };
    const system = systemEnv({
      stack,
      namespace,
      secrets: generateSecrets(),
      gatewayPort: ports.PORT!,
      crmPorts: [ports.CRM_GRPC_PORT!, ports.CRM_GRPC_PORT! + 10],
      webhooksPorts: [ports.WEBHOOKS_GRPC_PORT!, ports.WEBHOOKS_GRPC_PORT! + 10],
      messagingPorts: [{ grpc: ports.MESSAGING_GRPC_PORT!, http: ports.MESSAGING_HTTP_PORT! }],
      agentsPorts: [ports.AGENTS_GRPC_PORT!],
      simulatorPort: ports.SIM_PORT!,
    });
    // The servers' and services' addresses a terminal on that machine would default to; never the keys.
    const {
      CURSOR_SECRET: _c,
      WEBHOOK_SECRETS_KEY: _w,
      WEBHOOK_SECRETS_KEY_ID: _i,
      WEBHOOK_SECRETS_OLD_KEYS: _o,
      SERVICE_TOKEN_SECRET: _s,
      ...addresses
    } = system;
    const { VITEST: _v, VITEST_POOL_ID: _p, VITEST_WORKER_ID: _wid, NODE_ENV: _n, ...inherited } = process.env;
    env = {
      ...inherited,
      ...addresses,
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      // The shared Kafka takes logins only: a terminal pointed at it (KAFKA_BROKERS) carries one, as the README says.
      ...kafkaLogin(stack, 'admin'),
      CRM_NAMESPACE: namespace,
      CRM_REPLICAS: '2',
      WEBHOOKS_REPLICAS: '2',
    };
    shell = new ShellSession(clone, env);
    // Any HTTP error fails the command, as a person reading the answer would notice it.
    await shell.run('curl() { command curl --fail-with-body --silent --show-error "$@"; }');
  }, 600_000);

  afterAll(async () => {
    // Ctrl-C in each terminal: SIGINT to the whole process group (npm, its shell, tsx and node), as a terminal sends it.
    for (const { child } of background.reverse()) await interrupt(child);
    shell?.close();
    if (env) await dropNamespace(env);
    rmSync(clone, { recursive: true, force: true });
    await releaseStack();
  }, 180_000);

  /** The default ports in a command, rewritten to the ones this run gave npm start. */
  const localized = (command: string) =>
    command
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.PORT}`)
      .replaceAll('127.0.0.1:8090', `127.0.0.1:${ports.SIM_PORT}`)
      .replaceAll('127.0.0.1:9464', `127.0.0.1:${ports.METRICS_PORT}`);

  async function startInBackground(doc: DocCommand, ready: RegExp): Promise<void> {
    const log = join(clone, `.background-${background.length}.log`);
    const child = spawn('bash', ['-c', `exec ${localized(doc.command)} > '${log}' 2>&1`], {
      cwd: clone,
      env,
      stdio: 'ignore',
      detached: true,
    });
    background.push({ command: doc.command, child, log });
    const deadline = Date.now() + 900_000;
    for (;;) {
      const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
      if (ready.test(text)) return;
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`${doc.file}:${doc.line} \`${doc.command}\` did not get ready:\n${text.slice(-3000)}`);
      await sleep(500);
    }
  }

  /** What the background terminals and the services logged lately: the cause when a command fails. */
  function systemLogs(): string {
    const tail = (path: string, chars: number) => (existsSync(path) ? readFileSync(path, 'utf8').slice(-chars) : '');
    const logDir = join(clone, '.local/logs');
    const services = existsSync(logDir) ? readdirSync(logDir).map((name) => `\n--- ${name}:\n${tail(join(logDir, name), 1_200)}`) : [];
    return [...background.map(({ command, log }) => `\n--- ${command}:\n${tail(log, 2_000)}`), ...services].join('');
  }

  async function runDocument(file: string): Promise<void> {
    for (const doc of shellCommands(REPO_ROOT, file)) {
      expect(doc.command, `${file}:${doc.line} has a placeholder, not a command`).not.toMatch(/…|<[a-z_ ]+>/);
      if (NOT_RUN.some(([pattern]) => pattern.test(doc.command))) continue;
      const longRunning = LONG_RUNNING.find(([pattern]) => pattern.test(doc.command));
      if (longRunning) {
        if (!background.some((running) => running.command === doc.command)) await startInBackground(doc, longRunning[1]);
        continue;
      }
      const result = await shell!.run(localized(doc.command));
      results.set(doc.command, result);
      const refused = doc.comment.startsWith('refused');
      const where =
        `${file}:${doc.line} \`${doc.command}\`\nstdout: ${result.stdout.slice(-1500)}\nstderr: ${result.stderr.slice(-1500)}` +
        ((result.code === 0) === refused ? systemLogs() : '');
      if (refused) {
        expect(result.code, where).not.toBe(0);
        expect(result.stderr.trim().split('\n'), where).toHaveLength(1);
        expect(result.stderr.trim(), where).toMatch(/^error: /);
      } else expect(result.code, where).toBe(0);
    }
  }

  it('README.md: the quickstart ends in a verified, logged, redelivered and replayed contact.created', { timeout: 1_500_000 }, async () => {
    await runDocument('README.md');
    const created = [...results.entries()].find(([command]) => command.includes('"name":"Ada Lovelace"'))?.[1];
    const contactId = (JSON.parse(created?.stdout ?? '{}') as { data?: { id?: string } }).data?.id;
    expect(contactId).toMatch(/^ct_/);
    const listener = background.find((running) => running.command === 'npm run webhooks:listen');
    const printed = () => readFileSync(listener?.log ?? '', 'utf8').split('\n');
    // Delivered, redelivered, then replayed (the Events API block replays the last hour to this subscription), each
    // with the same event id: three verified lines for this contact.
    const lines = () => printed().filter((line) => line.includes('contact.created') && line.includes(contactId ?? '-'));
    for (let waited = 0; lines().length < 3 && waited < 30_000; waited += 250) await sleep(250);
    expect(lines(), printed().join('\n')).toHaveLength(3);
    expect(lines().every((line) => line.endsWith('signature verified'))).toBe(true);
    const eventIds = new Set(lines().map((line) => line.split(/\s+/)[2]));
    expect(eventIds.size).toBe(1);
    // The delivery log listed it.
    const log = [...results.entries()].find(([command]) => command.endsWith('/deliveries"'))?.[1];
    expect(log?.stdout).toContain([...eventIds][0]);
  });

  it.each(DOCUMENTS.slice(1))('%s: every command runs as written', { timeout: 900_000 }, async (file) => {
    await runDocument(file);
  });

  it(
    'npm start restarts a SIGKILLed replica of the CRM and of the webhook service under steady writes: nothing lost, both serving within 5 s',
    { timeout: 300_000 },
    async () => {
      const key = (JSON.parse(readFileSync(join(clone, '.local/demo-key.json'), 'utf8')) as { api_key: string }).api_key;
      const baseUrl = `http://127.0.0.1:${ports.PORT}`;
      const report = await crashUnderLoad({ folder: clone, baseUrl, key, names: ['crm-1', 'webhooks-1'] });
      const refusals = [...new Set(report.failed)].join(', ');
      console.log(
        `serving again after a SIGKILL (ms): ${JSON.stringify(report.servingAgainMs)}; ${report.acked.length} writes acknowledged, ${report.failed.length} not (${refusals})`,
      );
      expect(report.servingAgainMs['crm-1']).toBeLessThanOrEqual(5_000);
      expect(report.servingAgainMs['webhooks-1']).toBeLessThanOrEqual(5_000);
      expect(report.acked.length).toBeGreaterThan(20);
      // No acknowledged write lost: each reads back.
      for (const id of report.acked) {
        const read = await fetch(`${baseUrl}/v1/contacts/${id}`, { headers: { authorization: `Bearer ${key}` } });
        expect(read.status, id).toBe(200);
      }
      // Every event delivered: the quickstart's listener (every event type of the demo organization) printed each
      // contact.created, verified. A killed consumer's partitions wait out its Kafka session before moving.
      const listener = background.find((running) => running.command === 'npm run webhooks:listen');
      const missing = () => {
        const printed = readFileSync(listener?.log ?? '', 'utf8').split('\n');
        return report.acked.filter(
          (id) => !printed.some((line) => line.includes('contact.created') && line.includes(id) && line.endsWith('signature verified')),
        );
      };
      for (let waited = 0; missing().length > 0 && waited < 120_000; waited += 1_000) await sleep(1_000);
      expect(missing()).toEqual([]);
      // npm start -- status: every process listed and healthy, the two with one restart each.
      const status = await shell!.run('npm start --silent -- status');
      expect(status.code, status.stdout + status.stderr).toBe(0);
      for (const name of ['crm-1', 'webhooks-1']) expect(status.stdout).toMatch(new RegExp(`^${name}\\s+\\d+\\s+running\\s+1\\s`, 'm'));
    },
  );
});
