import { cpuSecondsOf, memoryOf, type Watched } from './proc-stats';
import { percentile, round, sleep } from './stats';

/** Length of one idle window: long enough for /proc's 10 ms CPU ticks to resolve 0.2 % of a core. */
export const IDLE_WINDOW_SECONDS = 5;

export interface ProcessFigures {
  name: string;
  pid: number;
  node: boolean;
  rss_mb: number | null;
  peak_rss_mb: number | null;
  /** Percent of one core with no traffic: the median of the idle windows (what the process costs while unused). */
  idle_cpu_percent: number | null;
  /** Percent of one core over the whole idle time, one-off work after the load included. */
  idle_cpu_mean_percent?: number | null;
  /** The busiest idle window, percent of one core: where one-off work (e.g. V8 shrinking the heap) shows. */
  idle_cpu_max_window_percent?: number | null;
}

export interface ResourceFigures {
  idle_seconds: number;
  idle_window_seconds?: number;
  processes: ProcessFigures[];
  idle_cpu_total_percent: number;
}

/**
 * Reads every watched process's CPU time over `seconds` with no traffic (the caller sends none), in windows of
 * IDLE_WINDOW_SECONDS, then its resident and peak resident memory: the peak is the benchmark's high-water mark,
 * the load having run before. The idle figure is the median window: a process's steady cost, which a one-off
 * clean-up after the load (V8's memory reducer runs three full collections once the allocation rate drops, ~250 ms
 * of CPU in the CRM) would otherwise count or not depending on whether it falls inside the measured time. The
 * mean and the busiest window are reported beside it.
 */
export async function measureResources(watched: Watched[], seconds: number): Promise<ResourceFigures> {
  const windows = Math.max(1, Math.round(seconds / IDLE_WINDOW_SECONDS));
  const readings = [watched.map((process) => cpuSecondsOf(process.pid))];
  const started = performance.now();
  const ends = [started];
  for (let window = 0; window < windows; window++) {
    await sleep(IDLE_WINDOW_SECONDS * 1000);
    readings.push(watched.map((process) => cpuSecondsOf(process.pid)));
    ends.push(performance.now());
  }
  const wall = (performance.now() - started) / 1000;
  const processes = watched.map((process, index): ProcessFigures => {
    const memory = memoryOf(process.pid);
    const idle = idleCpu(
      readings.map((reading) => reading[index] ?? null),
      ends,
    );
    return {
      ...process,
      rss_mb: memory?.rss_mb ?? null,
      peak_rss_mb: memory?.peak_rss_mb ?? null,
      idle_cpu_percent: idle?.median ?? null,
      idle_cpu_mean_percent: idle?.mean ?? null,
      idle_cpu_max_window_percent: idle?.busiest ?? null,
    };
  });
  const total = processes.reduce((sum, process) => sum + (process.idle_cpu_percent ?? 0), 0);
  return { idle_seconds: round(wall, 1), idle_window_seconds: IDLE_WINDOW_SECONDS, processes, idle_cpu_total_percent: round(total, 2) };
}

/**
 * A process's CPU over consecutive windows, in % of one core: the median window, the mean over all of them and the
 * busiest one. `cpuSeconds[i]` is its CPU time read at `at[i]` (ms); null when the process was not readable.
 */
export function idleCpu(cpuSeconds: Array<number | null>, at: number[]): { median: number; mean: number; busiest: number } | null {
  if (cpuSeconds.length < 2 || cpuSeconds.some((value) => value === null)) return null;
  const values = cpuSeconds as number[];
  const percentOf = (from: number, to: number) => ((values[to]! - values[from]!) / ((at[to]! - at[from]!) / 1000)) * 100;
  const windows = values
    .slice(1)
    .map((_, i) => percentOf(i, i + 1))
    .sort((a, b) => a - b);
  return { median: round(percentile(windows, 50), 2), mean: round(percentOf(0, values.length - 1), 2), busiest: round(windows.at(-1)!, 2) };
}
