import { isIP } from 'node:net';
import { IDLE_SOCKET_MS } from '@crm/shared/outbound-http';
import { Pool } from 'undici';

/** Targets whose connections are kept; the least recently used beyond it are closed once their requests finish. */
const MAX_TARGETS = 1_000;

const pools = new Map<string, Pool>();

export interface PoolTarget {
  https: boolean;
  /** The address the SSRF check approved: the only one this pool ever connects to. */
  address: string;
  port: number;
  /** The URL's host name: TLS SNI and certificate check (the Host header is the caller's). */
  hostname: string;
}

/**
 * A keep-alive undici pool per vetted target — scheme, the address the SSRF check approved, port and host name —
 * so a connection is only ever reused for the address it was opened to: a later DNS answer pointing elsewhere gets
 * its own check and its own pool (no rebinding through a pooled socket). The pool's origin is the vetted address
 * itself, so no DNS query is ever made for it; TLS verifies the certificate against the host name. Reuse spares
 * a TCP (and TLS) handshake per delivery, and undici spends under half of node:http's CPU per request (measured in
 * BENCHMARKS.md, Webhooks).
 */
export function poolFor(target: PoolTarget): Pool {
  const scheme = target.https ? 'https' : 'http';
  const key = `${scheme}|${target.address}|${target.port}|${target.hostname}`;
  let pool = pools.get(key);
  if (pool) {
    pools.delete(key);
  } else {
    const host = isIP(target.address) === 6 ? `[${target.address}]` : target.address;
    // SNI must carry the name, never an IP (Node warns and servers reject IP SNI).
    const servername = target.https && isIP(target.hostname) === 0 ? target.hostname : undefined;
    pool = new Pool(`${scheme}://${host}:${String(target.port)}`, {
      keepAliveTimeout: IDLE_SOCKET_MS,
      keepAliveMaxTimeout: IDLE_SOCKET_MS,
      connect: servername ? { servername } : {},
    });
  }
  pools.set(key, pool);
  if (pools.size > MAX_TARGETS) {
    const [oldest, old] = pools.entries().next().value as [string, Pool];
    pools.delete(oldest);
    // close(), not destroy(): deliveries in flight on the evicted pool finish (destroy would fail them).
    void old.close().catch(() => undefined);
  }
  return pool;
}

/** Closes every pooled connection (shutdown, tests). */
export async function closeConnections(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.destroy().catch(() => undefined)));
}
