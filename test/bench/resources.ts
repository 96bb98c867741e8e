import { cpuSecondsOf, memoryOf, type Watched } from './proc-stats';
import { round, sleep } from './stats';

export interface ProcessFigures {
  name: string;
  pid: number;
  node: boolean;
  rss_mb: number | null;
  peak_rss_mb: number | null;
  /** Percent of one core over the idle window. */
  idle_cpu_percent: number | null;
}

export interface ResourceFigures {
  idle_seconds: number;
  processes: ProcessFigures[];
  idle_cpu_total_percent: number;
}

/**
 * Reads every watched process's CPU time before and after `seconds` with no traffic (the caller sends none), then
 * its resident and peak resident memory: the peak is the benchmark's high-water mark, the load having run before.
 */
export async function measureResources(watched: Watched[], seconds: number): Promise<ResourceFigures> {
  const before = watched.map((process) => cpuSecondsOf(process.pid));
  const started = performance.now();
  await sleep(seconds * 1000);
  const wall = (performance.now() - started) / 1000;
  const processes = watched.map((process, index): ProcessFigures => {
    const start = before[index];
    const end = cpuSecondsOf(process.pid);
    const memory = memoryOf(process.pid);
    return {
      ...process,
      rss_mb: memory?.rss_mb ?? null,
      peak_rss_mb: memory?.peak_rss_mb ?? null,
      idle_cpu_percent: start === null || start === undefined || end === null ? null : round(((end - start) / wall) * 100, 2),
    };
  });
  const total = processes.reduce((sum, process) => sum + (process.idle_cpu_percent ?? 0), 0);
  return { idle_seconds: round(wall, 1), processes, idle_cpu_total_percent: round(total, 2) };
}
