import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../../deploy/lib/local-stack';
import { waitUntil } from '../../../deploy/lib/processes';

const run = promisify(execFile);

/** A toxic as toxiproxy's HTTP API takes it (POST /proxies/{proxy}/toxics). */
export interface Toxic {
  name: string;
  type: 'latency' | 'bandwidth' | 'reset_peer' | 'timeout' | 'slow_close' | 'limit_data';
  stream?: 'upstream' | 'downstream';
  toxicity?: number;
  attributes: Record<string, number>;
}

async function call(baseUrl: string, method: string, path: string, body?: unknown): Promise<void> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`toxiproxy ${method} ${path} answered ${response.status}: ${await response.text()}`);
}

/** The HTTP API of a running toxiproxy server. */
export function toxiproxy(baseUrl: string) {
  return {
    createProxy: (name: string, listen: string, upstream: string) =>
      call(baseUrl, 'POST', '/proxies', { name, listen, upstream, enabled: true }),
    addToxic: (proxy: string, toxic: Toxic) =>
      call(baseUrl, 'POST', `/proxies/${proxy}/toxics`, { stream: 'downstream', toxicity: 1, ...toxic }),
    removeToxic: (proxy: string, toxic: string) => call(baseUrl, 'DELETE', `/proxies/${proxy}/toxics/${toxic}`),
    /** A disabled proxy refuses connections and drops the open ones: a network partition. */
    setEnabled: (proxy: string, enabled: boolean) => call(baseUrl, 'POST', `/proxies/${proxy}`, { enabled }),
    /** Every proxy enabled again, every toxic removed. */
    reset: () => call(baseUrl, 'POST', '/reset'),
  };
}

export type Toxiproxy = ReturnType<typeof toxiproxy>;

/** Builds (first run only, deploy/toxiproxy.sh) and starts a toxiproxy server on `port`; resolves once it answers. */
export async function startToxiproxyServer(port: number, logFile: string): Promise<{ url: string; child: ChildProcess }> {
  const { stdout } = await run('bash', [resolve(REPO_ROOT, 'deploy/toxiproxy.sh'), '--install-only'], { timeout: 15 * 60_000 });
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(stdout.trim(), ['-host', '127.0.0.1', '-port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const url = `http://127.0.0.1:${port}`;
  await waitUntil('toxiproxy', async () => (await fetch(`${url}/version`)).ok, { timeoutMs: 30_000, logFile });
  return { url, child };
}
