import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REPO_ROOT = resolve(__dirname, '../../..');
const CLUSTER_SH = resolve(REPO_ROOT, 'deploy/cluster/cluster.sh');

/** What `cluster.sh env` prints about the running cluster (npm run cluster:up). */
export interface ClusterEnv {
  KUBECONFIG: string;
  KUBECTL: string;
  HELM: string;
  CLUSTER_NODE_IMAGE: string;
  CLUSTER_NODE_IP: string;
  CLUSTER_RELEASE: string;
  CLUSTER_NAMESPACE: string;
  CLUSTER_VALUES: string;
  CRM_GATEWAY_URL: string;
  CLUSTER_MONGODB_URI: string;
  CLUSTER_KAFKA_BROKERS: string;
  /** The cluster's Kafka takes logins only: the mechanism, and the file of its users' passwords (deploy/local/kafka.sh). */
  CLUSTER_KAFKA_SASL_MECHANISM: string;
  CLUSTER_KAFKA_USERS_FILE: string;
}

/** The environment of a Kafka client that logs in to the cluster's Kafka as `identity` (config.ts kafkaEnv). */
export function clusterKafkaEnv(env: ClusterEnv, identity: string): NodeJS.ProcessEnv {
  const line = readFileSync(env.CLUSTER_KAFKA_USERS_FILE, 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith(`${identity} `));
  return {
    KAFKA_BROKERS: env.CLUSTER_KAFKA_BROKERS,
    KAFKA_SASL_MECHANISM: env.CLUSTER_KAFKA_SASL_MECHANISM,
    KAFKA_SASL_USERNAME: identity,
    KAFKA_SASL_PASSWORD: line?.split(' ')[1] ?? '',
  };
}

let cached: Promise<ClusterEnv> | undefined;

/** The cluster's addresses and tools; fails with a hint when `npm run cluster:up` has not run. */
export function clusterEnv(): Promise<ClusterEnv> {
  cached ??= run('bash', [CLUSTER_SH, 'env'], { cwd: REPO_ROOT }).then(({ stdout }) => {
    const env = Object.fromEntries(
      stdout
        .split('\n')
        .map((line) => /^(\w+)=(.*)$/.exec(line.trim()))
        .filter((match): match is RegExpExecArray => match !== null)
        .map((match) => [match[1], match[2]]),
    ) as unknown as ClusterEnv;
    if (!env.CRM_GATEWAY_URL) throw new Error('no cluster: run `npm run cluster:up` first (deploy/cluster/README.md)');
    return env;
  });
  return cached;
}

interface RunOptions {
  input?: string;
  timeoutMs?: number;
  /** Return stderr after stdout (for scripts that report on stderr). */
  combined?: boolean;
}

/** Runs a command and returns its stdout; the error carries stdout and stderr. */
export function command(file: string, args: string[], env: NodeJS.ProcessEnv, options: RunOptions = {}): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(file, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: options.timeoutMs ?? 300_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0
        ? done(options.combined ? `${stdout}\n${stderr}` : stdout)
        : fail(new Error(`${file} ${args.join(' ')} exited ${String(code)}\n${stdout}\n${stderr}`)),
    );
    child.stdin.end(options.input ?? '');
  });
}

export async function kubectl(args: string[], options?: RunOptions): Promise<string> {
  const env = await clusterEnv();
  return command(env.KUBECTL, args, { KUBECONFIG: env.KUBECONFIG }, options);
}

export async function kubectlJson<T = any>(args: string[]): Promise<T> {
  return JSON.parse(await kubectl([...args, '-o', 'json'])) as T;
}

export async function helm(args: string[], options?: RunOptions): Promise<string> {
  const env = await clusterEnv();
  return command(env.HELM, args, { KUBECONFIG: env.KUBECONFIG }, options);
}

/** Polls `check` every 500 ms until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((wake) => setTimeout(wake, 500));
  }
}

/** The release's pods of one service (app.kubernetes.io/component) that are not terminating. */
export async function releasePods(component: string): Promise<{ name: string; ip: string; running: boolean }[]> {
  const { CLUSTER_NAMESPACE } = await clusterEnv();
  const pods = await kubectlJson<{ items: any[] }>([
    '-n',
    CLUSTER_NAMESPACE,
    'get',
    'pods',
    '-l',
    `app.kubernetes.io/component=${component}`,
  ]);
  return pods.items
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => ({ name: p.metadata.name as string, ip: p.status.podIP as string, running: p.status.phase === 'Running' }));
}

/**
 * Follows the logs of the pods of one service that exist now (they may be replaced meanwhile: their logs go with
 * them), until the returned function is called; it returns their lines, each prefixed with its pod.
 */
export async function followLogs(component: string): Promise<() => string[]> {
  const env = await clusterEnv();
  const lines: string[] = [];
  const children = (await releasePods(component)).map((pod) => {
    const child = spawn(env.KUBECTL, ['-n', env.CLUSTER_NAMESPACE, 'logs', '-f', pod.name], {
      env: { ...process.env, KUBECONFIG: env.KUBECONFIG },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(`${pod.name} ${line}`));
    return child;
  });
  return () => {
    for (const child of children) child.kill();
    return lines;
  };
}
