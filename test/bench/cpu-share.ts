import { availableParallelism, loadavg } from 'node:os';
import type { OwnSystem } from './own-system';
import { cpuSecondsOf, stackProcesses } from './proc-stats';

export interface CpuShare {
  /** CPU of each named process, and of the stack's database and Kafka, over the work, in % of one core. */
  cpu_percent: Record<string, number>;
  /** The machine's 1-minute load average when the work ended (above `cores`, processes wait for a core). */
  load_avg: number;
  cores: number;
}

/**
 * Runs `work` and reports how busy the named processes of the system were meanwhile, and the machine's load: the
 * measured reason a figure misses its target (a process at a full core, or a machine shared with other work).
 */
export async function withCpuShare<T>(own: OwnSystem, processes: string[], work: () => Promise<T>): Promise<{ result: T } & CpuShare> {
  const stack = stackProcesses();
  const names = [...processes, ...stack.map((server) => server.name)];
  const pids = [...processes.map((name) => own.system.process(name).snapshot().pid), ...stack.map((server) => server.pid)];
  const before = pids.map((pid) => (pid ? cpuSecondsOf(pid) : null));
  const started = Date.now();
  const result = await work();
  const seconds = (Date.now() - started) / 1000;
  const cpu_percent: Record<string, number> = {};
  names.forEach((name, index) => {
    const pid = pids[index];
    const start = before[index];
    const end = pid ? cpuSecondsOf(pid) : null;
    if (start !== null && start !== undefined && end !== null) cpu_percent[name] = Math.round(((end - start) / seconds) * 100);
  });
  return { result, cpu_percent, load_avg: Math.round((loadavg()[0] ?? 0) * 10) / 10, cores: availableParallelism() };
}
