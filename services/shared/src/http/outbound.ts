import { Agent } from 'undici';

/** Idle connections close after this long: below the keep-alive timeout of common servers (Node's is 5 s). */
export const IDLE_SOCKET_MS = 4_000;

/**
 * Keep-alive connections for a process's outbound calls (providers, models, callbacks), used with undici's own
 * `request` rather than `fetch`: fetch's WHATWG layer (Headers, Response, body streams) cost 0.26–0.34 ms more CPU
 * per call in a side-by-side probe (docs/performance.md, "Outbound HTTP"). A subpath of its own, so that only the
 * processes that call out load undici.
 */
export function keepAliveAgent(): Agent {
  return new Agent({ keepAliveTimeout: IDLE_SOCKET_MS, keepAliveMaxTimeout: IDLE_SOCKET_MS });
}
