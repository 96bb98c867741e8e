import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { REPO_ROOT } from './local-stack';

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
}

/**
 * Starts a service's main.ts under node with tsx's loader (one process, so signals reach the service itself),
 * its output appended to a log file.
 */
export function startService(name: string, entry: string, env: NodeJS.ProcessEnv, logFile: string): ServiceProcess {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(REPO_ROOT, entry)], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
export async function waitUntil(what: string, check: () => Promise<boolean>, options: { timeoutMs: number; process?: ServiceProcess; logFile?: string }): Promise<void> {
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
