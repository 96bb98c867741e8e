import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { REPO_ROOT } from './local-stack';

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
}

/**
 * How a process runs. `compiled`: plain node on the build's JavaScript (dist/, from `npm run build`), as in
 * the image; the default, so tests and `npm start` exercise what ships. `source`: node with tsx's loader on the
 * TypeScript sources, no build needed; for development only, chosen with CRM_RUN_FROM_SOURCE=1.
 */
export type RunMode = 'compiled' | 'source';

export function defaultRunMode(): RunMode {
  return process.env.CRM_RUN_FROM_SOURCE === '1' ? 'source' : 'compiled';
}

/** services/crm/src/main.ts → <repo>/dist/services/crm/src/main.js (tsconfig.build.json mirrors the repository). */
export function compiledEntry(entry: string): string {
  const path = relative(REPO_ROOT, resolve(REPO_ROOT, entry));
  if (path.startsWith('..') || isAbsolute(path) || !path.endsWith('.ts'))
    throw new Error(`${entry} is not a TypeScript file of this repository`);
  return resolve(REPO_ROOT, 'dist', path.replace(/\.ts$/, '.js'));
}

/** node's arguments for an entry given as its .ts source path. */
export function nodeArguments(entry: string, mode: RunMode): string[] {
  if (mode === 'source') return ['--import', 'tsx', resolve(REPO_ROOT, entry)];
  const compiled = compiledEntry(entry);
  if (!existsSync(compiled))
    throw new Error(`${compiled} does not exist: run \`npm run build\` (or set CRM_RUN_FROM_SOURCE=1 to run the sources with tsx)`);
  warnIfStale();
  return [compiled];
}

const BUILD_STAMP = resolve(REPO_ROOT, 'dist/build.stamp');
const SOURCE_DIRS = [
  'proto/gen',
  'services/shared/src',
  'services/crm/src',
  'services/webhooks/src',
  'services/messaging/src',
  'services/agents/src',
  'gateway/src',
  'tools/dev/src',
];
let staleChecked = false;

/**
 * `npm start` and `npm test` always build first; this catches a direct `vitest`/bench run after an edit. Only a
 * warning: in a shared working tree a file saved after the build must not fail a run that is starting.
 */
function warnIfStale(): void {
  if (staleChecked) return;
  staleChecked = true;
  const builtAt = existsSync(BUILD_STAMP) ? statSync(BUILD_STAMP).mtimeMs : 0;
  const newer = SOURCE_DIRS.flatMap((dir) =>
    readdirSync(resolve(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' }).map((file) => resolve(REPO_ROOT, dir, file)),
  ).find((file) => file.endsWith('.ts') && statSync(file).mtimeMs > builtAt);
  if (newer)
    console.warn(
      `warning: ${relative(REPO_ROOT, newer)} is newer than the last \`npm run build\`; the compiled processes may be out of date`,
    );
}

/**
 * Starts a service from its entry's .ts path, compiled or from source (see RunMode), as one node process (so
 * signals reach the service itself), its output appended to a log file. Its Prometheus endpoint is off unless
 * `env` names a METRICS_PORT: processes started side by side must not all claim the default 9464.
 */
export function startService(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  logFile: string,
  mode: RunMode = defaultRunMode(),
): ServiceProcess {
  const args = nodeArguments(entry, mode);
  mkdirSync(dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return {
    name,
    child,
    exited,
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls `check` until it answers true; fails early if the process dies, with its log's location. */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs: number; process?: ServiceProcess; logFile?: string },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let died = false;
  void options.process?.exited.then(() => (died = true));
  while (Date.now() < deadline) {
    if (died) throw new Error(`${what}: the process exited during start-up; see ${options.logFile ?? 'its log'}`);
    if (await check().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`${what} did not become ready within ${options.timeoutMs} ms; see ${options.logFile ?? 'its log'}`);
}
