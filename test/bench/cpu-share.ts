import { availableParallelism, loadavg } from 'node:os';
import type { OwnSystem } from './own-system';
import { cpuSecondsOf } from './proc-stats';

export interface CpuShare {
  /** CPU of each named process over the work, in % of one core. */
  cpu_percent: Record<string, number>;
  /** The machine's 1-minute load average when the work ended (above `cores`, processes wait for a core). */
  load_avg: number;
  cores: number;
}

/**
 * Runs `work` and reports how busy the named processes of the system were meanwhile, and the machine's load: the
 * measured reason a figure misses its target (a process at a full core, or a machine shared with other work).
 */
export async function withCpuShare<T>(own: OwnSystem, names: string[], work: () => Promise<T>): Promise<{ result: T } & CpuShare> {
  const pids = names.map((name) => own.system.process(name).snapshot().pid);
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
