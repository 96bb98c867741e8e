import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REPO_ROOT = resolve(__dirname, '..', '..');
const STACK = resolve(REPO_ROOT, 'deploy/local/stack.sh');

export interface StackEnv {
  MONGODB_URI: string;
  KAFKA_BROKERS: string;
}

/** Starts (installing if needed) the local Kafka and SecantusDB unless MONGODB_URI / KAFKA_BROKERS point elsewhere. */
export async function startLocalStack(): Promise<StackEnv> {
  const { stdout } = await run('bash', [STACK, 'start'], { env: process.env, maxBuffer: 16 * 1024 * 1024, timeout: 20 * 60_000 }).catch(
    (error: { stderr?: string }) => {
      throw new Error(`could not start the local stack:\n${error.stderr ?? String(error)}`);
    },
  );
  return parseEnv(stdout);
}

/** Whether both local servers already run (then nobody should stop them afterwards). */
export async function localStackRunning(): Promise<boolean> {
  return run('bash', [STACK, 'status'], { env: process.env }).then(
    () => true,
    () => false,
  );
}

export async function stopLocalStack(): Promise<void> {
  await run('bash', [STACK, 'stop'], { env: process.env, timeout: 60_000 });
}

function parseEnv(stdout: string): StackEnv {
  const values = Object.fromEntries(
    stdout
      .split('\n')
      .map((line) => /^(\w+)=(.*)$/.exec(line.trim()))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1], match[2]?.replace(/^['"]|['"]$/g, '')]),
  );
  if (!values.MONGODB_URI || !values.KAFKA_BROKERS) throw new Error(`the stack printed no MONGODB_URI / KAFKA_BROKERS:\n${stdout}`);
  return { MONGODB_URI: values.MONGODB_URI, KAFKA_BROKERS: values.KAFKA_BROKERS };
}
