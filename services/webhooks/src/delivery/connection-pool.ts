import * as http from 'node:http';
import * as https from 'node:https';

/** Idle connections close after this long: below the keep-alive timeout of common servers (Node's is 5 s). */
const IDLE_SOCKET_MS = 4_000;
/** Targets whose connections are kept; the least recently used beyond it are closed. */
const MAX_TARGETS = 1_000;

const agents = new Map<string, http.Agent>();

/**
 * A keep-alive agent per vetted target — scheme, the address the SSRF check approved, port and host name — so a
 * connection is only ever reused for the address it was opened to: a later DNS answer pointing elsewhere gets its
 * own check and its own agent (no rebinding through a pooled socket). Reuse spares a TCP (and TLS) handshake per
 * delivery; at a thousand deliveries a second that is most of the sender's cost.
 */
export function agentFor(target: { https: boolean; address: string; port: number; hostname: string }): http.Agent {
  const key = `${target.https ? 'https' : 'http'}|${target.address}|${target.port}|${target.hostname}`;
  let agent = agents.get(key);
  if (agent) {
    agents.delete(key);
  } else {
    const options = { keepAlive: true, maxFreeSockets: 32, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
    agent = target.https ? new https.Agent(options) : new http.Agent(options);
  }
  agents.set(key, agent);
  if (agents.size > MAX_TARGETS) {
    const [oldest, old] = agents.entries().next().value as [string, http.Agent];
    agents.delete(oldest);
    old.destroy();
  }
  return agent;
}

/** Closes every pooled connection (shutdown, tests). */
export function closeConnections(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}
