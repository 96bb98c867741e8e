import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../deploy/lib/local-stack';

/** A process the benchmark watches: a service replica, the gateway, the database server, Kafka, the peer. */
export interface Watched {
  name: string;
  pid: number;
  /** The system's own processes have the 150 MB target; the DB server, Kafka and the provider simulator are reported only. */
  node: boolean;
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on almost every Linux). */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** Resident and peak resident set in MB (VmRSS, VmHWM of /proc/<pid>/status); null once the process is gone. */
export function memoryOf(pid: number): { rss_mb: number; peak_rss_mb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss_mb: Math.round(kb('VmRSS') / 102.4) / 10, peak_rss_mb: Math.round(kb('VmHWM') / 102.4) / 10 };
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) the process has used so far; null once it is gone. */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return null;
  }
}

/** The pid listening on a loopback TCP port (`ss -ltnp`), when this user may see it. */
function listenerOf(port: string | undefined): number {
  if (!port) return NaN;
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
    return Number(/pid=(\d+)/.exec(out)?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/**
 * The local stack's servers: from their pid files when this checkout started the stack, else the processes
 * listening on MONGODB_URI's and KAFKA_BROKERS' ports (a stack shared by several checkouts).
 */
export function stackProcesses(): Watched[] {
  const found: Watched[] = [];
  const portOf = (address: string | undefined) => /:(\d+)(?:[/?,]|$)/.exec(address ?? '')?.[1];
  for (const [name, file, address] of [
    ['database (SecantusDB)', '.local/stack/secantus/secantus.pid', process.env.MONGODB_URI],
    ['kafka', '.local/stack/kafka/kafka.pid', process.env.KAFKA_BROKERS],
  ] as const) {
    const path = resolve(REPO_ROOT, file);
    const pid = existsSync(path) ? Number(readFileSync(path, 'utf8').trim()) : listenerOf(portOf(address));
    if (Number.isInteger(pid) && pid > 0 && existsSync(`/proc/${pid}`)) found.push({ name, pid, node: false });
  }
  return found;
}
