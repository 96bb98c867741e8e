import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { REPO_ROOT } from './local-stack';
import { formatDuration } from './progress';
import type { ProcessStatus, RunningSystem } from './system';
import { planProcesses, type SystemPorts } from './system-plan';

/** What a running `npm start` tells other commands (`npm start -- status`, `stop`), kept up to date in .local/run/. */
export interface RunState {
  /** The pid of the `npm start` process: the supervisor of every process below. */
  pid: number;
  startedAt: number;
  baseUrl: string;
  ports: SystemPorts;
  processes: ProcessStatus[];
}

export const RUN_STATE_FILE = resolve(REPO_ROOT, '.local/run/npm-start.json');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export function writeRunState(state: Omit<RunState, 'processes'>, system: RunningSystem, file = RUN_STATE_FILE): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify({ ...state, processes: system.status() } satisfies RunState, null, 2));
  renameSync(`${file}.tmp`, file);
}

export const removeRunState = (file = RUN_STATE_FILE) => rmSync(file, { force: true });

/** The state of the `npm start` running now, or null (none, or one that died without cleaning up). */
export function readRunState(file = RUN_STATE_FILE): RunState | null {
  if (!existsSync(file)) return null;
  const state = JSON.parse(readFileSync(file, 'utf8')) as RunState;
  return alive(state.pid) ? state : null;
}

/** Every process with its health probed now. */
export async function probeRunState(state: RunState): Promise<Array<ProcessStatus & { healthy: boolean }>> {
  const plans = planProcesses(state.ports);
  return Promise.all(
    state.processes.map(async (process) => {
      const plan = plans.find((candidate) => candidate.name === process.name);
      return { ...process, healthy: process.state === 'running' && (await (plan?.healthy() ?? false)) };
    }),
  );
}

/** The table of `npm start -- status`. */
export function formatStatus(state: RunState, processes: Array<ProcessStatus & { healthy: boolean }>, now = Date.now()): string {
  const rows = processes.map((process) => [
    process.name,
    String(process.pid ?? '-'),
    process.state,
    String(process.restarts),
    process.state === 'running' ? formatDuration((now - process.startedAt) / 1000) : '-',
    Object.entries(process.ports)
      .map(([role, port]) => `${role} ${port}`)
      .join(', '),
    process.healthy ? 'healthy' : 'NOT HEALTHY',
  ]);
  const header = ['PROCESS', 'PID', 'STATE', 'RESTARTS', 'UP', 'PORTS', 'HEALTH'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const format = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  const unhealthy = processes.filter((process) => !process.healthy).length;
  return [
    `npm start (pid ${state.pid}) up ${formatDuration((now - state.startedAt) / 1000)}, ${state.baseUrl}`,
    '',
    format(header),
    ...rows.map(format),
    '',
    unhealthy === 0 ? `${processes.length} processes, all healthy` : `${unhealthy} of ${processes.length} processes not healthy`,
  ].join('\n');
}
