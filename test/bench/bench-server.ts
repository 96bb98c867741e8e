import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { freePort } from '../../deploy/lib/ports';

export interface BenchServer {
  name: string;
  pid: number;
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts one of the benchmark's own servers (the ceiling, the peer) as a child process on a free loopback port and
 * waits until `readyPath` answers (any status: the peer answers 401 to a request without a key).
 */
export async function startBenchServer(
  name: string,
  file: string,
  env: NodeJS.ProcessEnv,
  logFile: string,
  readyPath: string,
): Promise<BenchServer> {
  const port = await freePort();
  mkdirSync(dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, file)], {
    env: { ...process.env, ...env, BENCH_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited during start-up; see ${logFile}`);
    if (
      await fetch(`${baseUrl}${readyPath}`).then(
        () => true,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not answer within 30 s; see ${logFile}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return { name, pid: child.pid ?? 0, baseUrl, stop };
}
