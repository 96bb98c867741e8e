import type { LoadRequest } from './load';
import { cpuSecondsOf, type Watched } from './proc-stats';
import { round } from './stats';

/** Where one request of a route goes: CPU of each process, database commands, bytes on the gRPC hop. */
export interface RouteCost {
  /** CPU (user + system from /proc/<pid>/stat) over the 16-client run divided by its requests, per process group. */
  cpu_ms_per_request: Record<string, number>;
  /** Database commands of one request (gateway + services, X-Db-Commands), the key check excluded when cached. */
  db_commands: number | null;
  commands: string[];
  /** gRPC bytes of one request, gateway → service and back (X-Grpc-Bytes). */
  grpc_bytes: { sent: number; received: number } | null;
}

/** Reads CPU seconds of every watched process now; `since` turns a reading into ms per request by group name. */
export function cpuReading(watched: Watched[]) {
  const before = watched.map((process) => cpuSecondsOf(process.pid) ?? NaN);
  return {
    since(requests: number): Record<string, number> {
      const groups: Record<string, number> = {};
      watched.forEach((process, index) => {
        const used = (cpuSecondsOf(process.pid) ?? NaN) - (before[index] ?? NaN);
        const group = process.name.replace(/-\d+$/, '');
        groups[group] = (groups[group] ?? 0) + used;
      });
      return Object.fromEntries(
        Object.entries(groups).map(([group, seconds]) => [group, round((seconds * 1000) / Math.max(1, requests), 3)]),
      );
    },
  };
}

/**
 * Asks the gateway (EXPOSE_DB_COMMANDS=on-request) for the commands and gRPC bytes of a few requests, one at a time,
 * and keeps the smallest count: the steady state, where the cached key check and count cost nothing.
 */
export async function probeRequest(
  baseUrl: string,
  request: LoadRequest,
  times = 5,
): Promise<Pick<RouteCost, 'db_commands' | 'commands' | 'grpc_bytes'>> {
  let best: Pick<RouteCost, 'db_commands' | 'commands' | 'grpc_bytes'> = { db_commands: null, commands: [], grpc_bytes: null };
  for (let i = 0; i < times; i++) {
    const varied = { ...request, ...request.next?.(1_000_000 + i) };
    const response = await fetch(`${baseUrl}${varied.path}`, {
      method: varied.method,
      headers: { ...varied.headers, 'x-db-commands': '1' },
      body: varied.body,
    });
    await response.arrayBuffer();
    const header = response.headers.get('x-db-commands');
    if (header === null) return best;
    const commands = header.split(',').filter(Boolean);
    const [sent, received] = (response.headers.get('x-grpc-bytes') ?? '').split(' ').map(Number);
    if (best.db_commands === null || commands.length < best.db_commands)
      best = { db_commands: commands.length, commands, grpc_bytes: { sent: sent ?? 0, received: received ?? 0 } };
  }
  return best;
}
