import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, startLocalStack } from '../../../deploy/lib/local-stack';
import type { ChaosStackEnv } from './context';

const run = promisify(execFile);
const LOCAL = resolve(REPO_ROOT, 'deploy/local');

// Empty MONGODB_URI / KAFKA_BROKERS: the scripts would otherwise take a caller's servers as external and skip ours.
const stackProcessEnv = (stackEnv: ChaosStackEnv): NodeJS.ProcessEnv => ({
  ...process.env,
  MONGODB_URI: '',
  KAFKA_BROKERS: '',
  ...stackEnv,
});

/**
 * Runs one function of deploy/local's scripts (kafka_stop, secantus_start, …) on the chaos suite's own servers, so
 * one server can be stopped and started while the other keeps running (stack.sh itself only does both).
 */
async function stackFunction(stackEnv: ChaosStackEnv, fn: string): Promise<void> {
  const script = `set -euo pipefail; source "${LOCAL}/lib.sh"; source "${LOCAL}/kafka.sh"; source "${LOCAL}/secantus.sh"; ${fn}`;
  await run('bash', ['-c', script], { env: stackProcessEnv(stackEnv), timeout: 180_000 }).catch((error: { stderr?: string }) => {
    throw new Error(`${fn} failed:\n${error.stderr ?? String(error)}`);
  });
}

/** Starts both servers; what they print (addresses, Kafka's logins) is the system's stack. */
export const startStack = (stackEnv: ChaosStackEnv) => startLocalStack({ env: stackProcessEnv(stackEnv) });
export const stopStack = (stackEnv: ChaosStackEnv) => stackFunction(stackEnv, 'kafka_stop; secantus_stop');
export const stopKafka = (stackEnv: ChaosStackEnv) => stackFunction(stackEnv, 'kafka_stop');
export const startKafka = (stackEnv: ChaosStackEnv) => stackFunction(stackEnv, 'kafka_start');
export const stopDatabase = (stackEnv: ChaosStackEnv) => stackFunction(stackEnv, 'secantus_stop');
export const startDatabase = (stackEnv: ChaosStackEnv) => stackFunction(stackEnv, 'secantus_start');
