import { Agent, request as httpRequest } from 'node:http';
import type { LoadOptions, LoadResult } from './load';
import { percentile, round, sleep } from './stats';

/** How many of the slowest answers a run reports. */
const SLOWEST_KEPT = 8;

/**
 * Open-loop load at an even pace: request i is due at start + i / rate whatever the earlier answers did, on at most
 * `clients` keep-alive connections (a request waits for a free one), and its latency counts from when it was due,
 * so a slow answer shows in every request it delays. autocannon's rate instead lets each connection send its whole
 * second's share at once at the start of every second: "half the maximum rate" was then the maximum rate for half
 * of each second, and its latencies those of a saturated server.
 */
export async function runPacedLoad(
  options: LoadOptions & {
    rate: number;
    /**
     * Its connections (openPool), left open for the caller to close; by default a pool of its own, whose connections
     * open as the load needs them and close at the end.
     */
    agent?: Agent;
  },
): Promise<LoadResult & { statuses: Record<string, number> }> {
  const { request } = options;
  const url = new URL(options.baseUrl);
  const agent = options.agent ?? new Agent({ keepAlive: true, maxSockets: options.clients });
  const total = Math.round(options.rate * options.seconds);
  const latencies: number[] = [];
  const answered: Array<{ due_ms: number; latency_ms: number }> = [];
  const sendLags: number[] = [];
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  const statuses: Record<string, number> = {};
  const sent: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / options.rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    sendLags.push(performance.now() - due);
    const varied = { ...request, ...request.next?.(i) };
    sent.push(
      send(agent, url, varied).then(
        (status) => {
          const latency = performance.now() - due;
          latencies.push(latency);
          answered.push({ due_ms: Math.round(due - start), latency_ms: Math.round(latency) });
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status >= 200 && status < 300) ok++;
          else non2xx++;
        },
        () => {
          errors++;
        },
      ),
    );
  }
  await Promise.all(sent);
  if (!options.agent) agent.destroy();
  const seconds = (performance.now() - start) / 1000;
  const at = (p: number) => percentileOf(latencies, p);
  return {
    clients: options.clients,
    seconds: round(seconds, 2),
    target_rate: options.rate,
    requests: total,
    ok,
    rps: round(ok / seconds),
    p50_ms: at(50),
    p90_ms: at(90),
    p99_ms: at(99),
    max_ms: at(100),
    errors,
    non_2xx: non2xx,
    send_lag_p99_ms: percentileOf(sendLags, 99),
    statuses,
    p99_after_first_second_ms: percentileOf(
      answered.filter((answer) => answer.due_ms >= 1_000).map((answer) => answer.latency_ms),
      99,
    ),
    slowest: answered.sort((a, b) => b.latency_ms - a.latency_ms).slice(0, SLOWEST_KEPT),
  };
}

/**
 * A keep-alive pool of `clients` connections, each opened now by one `request` (not measured), as a client that has
 * been running has them: a new pool opens connections only once answers slow down, and those are measured too.
 */
export async function openPool(baseUrl: string, request: LoadOptions['request'], clients: number): Promise<Agent> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const url = new URL(baseUrl);
  await Promise.all(Array.from({ length: clients }, () => send(agent, url, request)));
  return agent;
}

/** One request on the pool; resolves with the status once the whole answer has been read (also flood.worker.ts's). */
export function send(agent: Agent, url: URL, request: LoadOptions['request']): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { agent, host: url.hostname, port: url.port, method: request.method, path: request.path, headers: request.headers },
      (answer) => {
        answer.on('end', () => resolve(answer.statusCode ?? 0)).resume();
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** The `p`th percentile of `values` (unsorted), or null when there are none. */
function percentileOf(values: number[], p: number): number | null {
  return values.length > 0
    ? round(
        percentile(
          values.sort((a, b) => a - b),
          p,
        ),
      )
    : null;
}
