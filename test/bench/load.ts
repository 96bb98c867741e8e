import autocannon from 'autocannon';
import { runPacedLoad } from './paced-load';
import { round } from './stats';

/** One HTTP request of a scenario; `next(i)` varies it per request (a different deal, a different value). */
export interface LoadRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  next?: (i: number) => { path?: string; body?: string; headers?: Record<string, string> };
}

export interface LoadOptions {
  baseUrl: string;
  request: LoadRequest;
  clients: number;
  seconds: number;
  /** Requests per second over all clients, evenly paced (paced-load.ts); unset means as fast as the server answers. */
  rate?: number;
}

/** The figures of one load run; req/s counts 2xx answers only, so a failing route cannot look fast. */
export interface LoadResult {
  clients: number;
  seconds: number;
  target_rate: number | null;
  requests: number;
  /** 2xx answers. */
  ok: number;
  rps: number;
  /** Null when no answer came back within the run: autocannon would say 0 ms. */
  p50_ms: number | null;
  p90_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
  errors: number;
  non_2xx: number;
  /**
   * Paced runs: how late the load generator itself sent its requests (p99, ms after each was due) — time counted in
   * the latencies that no server spent: this process waited for a core or for its own event loop.
   */
  send_lag_p99_ms?: number | null;
  /** Paced runs: p99 of the answers due a second or more after the run's start (past a stall at its start). */
  p99_after_first_second_ms?: number | null;
  /** Paced runs: the slowest answers, each with when it was due (ms from the run's start): a start-up stall or spread out. */
  slowest?: Array<{ due_ms: number; latency_ms: number }>;
}

/** Drives `clients` keep-alive connections at the route for `seconds` with autocannon (in this process), or paced. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (options.rate) return runPacedLoad({ ...options, rate: options.rate });
  const { request } = options;
  let sequence = 0;
  const result = await autocannon({
    url: options.baseUrl,
    connections: options.clients,
    duration: options.seconds,
    requests: [
      {
        method: request.method,
        path: request.path,
        headers: request.headers,
        body: request.body,
        // autocannon calls setupRequest whenever the key is present, even when undefined.
        ...(request.next ? { setupRequest: (current: autocannon.Request) => ({ ...current, ...request.next?.(sequence++) }) } : {}),
      },
    ],
  });
  const answered = result.requests.total > 0;
  return {
    clients: options.clients,
    seconds: round(result.duration, 2),
    target_rate: options.rate ?? null,
    requests: result.requests.total,
    ok: result['2xx'],
    rps: round(result['2xx'] / result.duration),
    p50_ms: answered ? result.latency.p50 : null,
    p90_ms: answered ? result.latency.p90 : null,
    p99_ms: answered ? result.latency.p99 : null,
    max_ms: answered ? result.latency.max : null,
    errors: result.errors,
    non_2xx: result.non2xx,
  };
}
