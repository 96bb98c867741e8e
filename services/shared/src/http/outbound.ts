import type { IncomingHttpHeaders } from 'node:http';
import { Agent, request, type Dispatcher } from 'undici';

/** Idle connections close after this long: below the keep-alive timeout of common servers (Node's is 5 s). */
export const IDLE_SOCKET_MS = 4_000;

/** Keep-alive connections for outbound calls; a process that must close its own (a simulator in a test) makes one. */
export function keepAliveAgent(): Agent {
  return new Agent({ keepAliveTimeout: IDLE_SOCKET_MS, keepAliveMaxTimeout: IDLE_SOCKET_MS });
}

/** The process's outbound connections (providers, models), made on the first call. */
let shared: Agent | undefined;

export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Aborts the whole exchange, the answer's body included; the call rejects with the signal's reason. */
  signal: AbortSignal;
}

export interface OutboundAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One outbound HTTP exchange, read to its end, on keep-alive connections. undici's own `request` rather than
 * `fetch`: fetch's WHATWG layer (Headers, Response, body streams) cost 0.26–0.34 ms more CPU per call in a
 * side-by-side probe (docs/performance.md, "Outbound HTTP"). Rejects when the target cannot be reached (the error's
 * `code`: ECONNREFUSED, ENOTFOUND, …) or the signal aborts. A subpath of its own, so that only the processes that
 * call out load undici.
 */
export async function exchange(
  url: string,
  init: OutboundRequest,
  dispatcher: Dispatcher = (shared ??= keepAliveAgent()),
): Promise<OutboundAnswer> {
  const response = await request(url, { ...init, dispatcher });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}
