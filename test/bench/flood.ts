/**
 * Clients that never back off, with their connections open before the flood begins (bench:capacity's overload).
 * autocannon opens every connection in the instant its load begins: with a thousand clients on the machine's two
 * cores, that measured the platform accepting a thousand connections at once (docs/capacity.md, "The flood's first
 * second") as much as one organization saturating its backends. Here the clients connect first, each with one
 * request of a cheap path, and the flood begins when `run` is called: every client sends at once, then again as soon
 * as answered. In a process of its own, so that the other organization's latencies, measured in the calling process,
 * are not the time its answers waited behind a thousand connections in one event loop.
 */
import { resolve } from 'node:path';
import { fork } from 'node:child_process';
import { percentile, round } from './stats';

export interface FloodSetup {
  baseUrl: string;
  clients: number;
  /** Opens each connection (unauthenticated and cheap: the probe). */
  connectPath: string;
  request: { method: 'GET'; path: string; headers?: Record<string, string> };
  /** False: each connection opens when the flood begins, as autocannon's do (CAPACITY_COLD_CONNECTIONS=1: the harness before). */
  connectFirst: boolean;
}

export type FloodCommand = { kind: 'connect' } | { kind: 'run'; seconds: number } | { kind: 'close' };

export interface FloodAnswers {
  seconds: number;
  statuses: Record<string, number>;
  /** Of every answer counted, ms from sent. */
  latencies: number[];
  errors: number;
}

type FloodReply = { kind: 'connected' | 'closed' } | { kind: 'answers'; answers: FloodAnswers } | { kind: 'failed'; message: string };

export interface FloodResult {
  seconds: number;
  statuses: Record<string, number>;
  /** 2xx per second. */
  goodput: number;
  p50_ms: number | null;
  p99_ms: number | null;
  errors: number;
}

export interface Flood {
  /** The clients' process. */
  pid: number | undefined;
  /** Floods for `seconds`; answers arriving after that are not counted. */
  run(seconds: number): Promise<FloodResult>;
  /** Closes every connection and the worker. */
  close(): Promise<void>;
}

/** `setup.clients` clients, their connections open once this resolves (with `connectFirst`). */
export async function openFlood(setup: FloodSetup): Promise<Flood> {
  const worker = fork(resolve(__dirname, 'flood.worker.ts'), {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, FLOOD_SETUP: JSON.stringify(setup) },
  });
  const ask = (command: FloodCommand): Promise<FloodReply> =>
    new Promise((resolve, reject) => {
      worker.once('message', (reply: FloodReply) =>
        reply.kind === 'failed' ? reject(new Error(`flood: ${reply.message}`)) : resolve(reply),
      );
      worker.once('error', reject);
      worker.send(command);
    });
  if (setup.connectFirst) await ask({ kind: 'connect' });
  return {
    pid: worker.pid,
    async run(seconds) {
      const reply = await ask({ kind: 'run', seconds });
      if (reply.kind !== 'answers') throw new Error(`flood: unexpected ${reply.kind}`);
      return summarise(reply.answers);
    },
    async close() {
      await ask({ kind: 'close' });
      worker.kill();
    },
  };
}

function summarise({ seconds, statuses, latencies, errors }: FloodAnswers): FloodResult {
  const ok = Object.entries(statuses).reduce(
    (sum, [status, count]) => sum + (Number(status) >= 200 && Number(status) < 300 ? count : 0),
    0,
  );
  const sorted = latencies.sort((a, b) => a - b);
  const at = (p: number) => (sorted.length > 0 ? round(percentile(sorted, p)) : null);
  return { seconds: round(seconds, 2), statuses, goodput: round(ok / seconds), p50_ms: at(50), p99_ms: at(99), errors };
}
