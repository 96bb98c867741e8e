import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REPO_ROOT = resolve(__dirname, '..', '..');
const STACK = resolve(REPO_ROOT, 'deploy/local/stack.sh');

export interface StackEnv {
  MONGODB_URI: string;
  KAFKA_BROKERS: string;
  /**
   * The local Kafka's SASL logins (deploy/local/kafka.sh): its mechanism and the password of each identity (`admin`
   * and one per service). Absent when Kafka is external or still runs as started before it required a login.
   */
  kafkaLogins?: { mechanism: string; passwords: Record<string, string> };
}

/**
 * The environment of a Kafka client that logs in as `identity` (config.ts kafkaEnv); empty when the stack's Kafka
 * takes no logins.
 */
export function kafkaLogin(stack: StackEnv, identity: string): NodeJS.ProcessEnv {
  if (!stack.kafkaLogins) return {};
  const password = stack.kafkaLogins.passwords[identity];
  if (!password) throw new Error(`the local Kafka has no user ${identity} (deploy/local/kafka.sh KAFKA_SCRAM_USERS)`);
  return { KAFKA_SASL_MECHANISM: stack.kafkaLogins.mechanism, KAFKA_SASL_USERNAME: identity, KAFKA_SASL_PASSWORD: password };
}

/**
 * Starts (installing if needed) the local Kafka and SecantusDB unless MONGODB_URI / KAFKA_BROKERS point elsewhere.
 * `onLine` gets each progress line of the scripts as it comes (what is installed, crates compiled, time left);
 * without it they are kept and shown only if the start fails.
 */
export async function startLocalStack(options: { onLine?: (line: string) => void; env?: NodeJS.ProcessEnv } = {}): Promise<StackEnv> {
  const child = spawn('bash', [STACK, 'start'], { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const timeout = setTimeout(() => child.kill('SIGTERM'), 20 * 60_000);
  let stdout = '';
  const errors: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  createInterface({ input: child.stderr }).on('line', (line) => {
    errors.push(line);
    options.onLine?.(line.replace(/^\[stack\] /, ''));
  });
  const code = await new Promise<number | null>((done) => child.once('close', done));
  clearTimeout(timeout);
  if (code !== 0) throw new Error(`could not start the local stack:\n${errors.slice(-40).join('\n')}`);
  return parseEnv(stdout);
}

/** Whether both local servers already run (then nobody should stop them afterwards). */
export async function localStackRunning(): Promise<boolean> {
  return run('bash', [STACK, 'status'], { env: process.env }).then(
    () => true,
    () => false,
  );
}

/** Stops the stack `env` names (its CRM_STACK_DIR and ports over process.env's), both servers. */
export async function stopLocalStack(env: NodeJS.ProcessEnv = {}): Promise<void> {
  await run('bash', [STACK, 'stop'], { env: { ...process.env, ...env }, timeout: 60_000 });
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
  const stack: StackEnv = { MONGODB_URI: values.MONGODB_URI, KAFKA_BROKERS: values.KAFKA_BROKERS };
  if (values.KAFKA_SASL_MECHANISM && values.KAFKA_USERS_FILE)
    stack.kafkaLogins = { mechanism: values.KAFKA_SASL_MECHANISM, passwords: readKafkaUsers(values.KAFKA_USERS_FILE) };
  return stack;
}

/** The "name password" lines of the stack's users file. */
function readKafkaUsers(file: string): Record<string, string> {
  const lines = readFileSync(file, 'utf8').split('\n');
  return Object.fromEntries(lines.map((line) => line.trim().split(/\s+/)).filter((fields) => fields.length === 2));
}
