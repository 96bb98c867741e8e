import { readFileSync } from 'node:fs';
import { sleep } from './stats';

/** The machine's CPU time so far (/proc/stat's first line, in ticks): all of it, and the idle part. */
export function machineTicks(): { total: number; idle: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is counted in user already).
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  return { total: user + nice + system + idle + iowait + irq + softirq + steal, idle: idle + iowait };
}

export interface Quiet {
  waited_ms: number;
  /** False: the machine was still busy when the wait gave up. */
  quiet: boolean;
  /** How busy the machine was over the last sample, % of all its cores. */
  busy_percent: number;
}

const SAMPLE_MS = 500;
/** What a quiet machine is by default, and how long a run waits for one: the report states these. */
export const QUIET = { threshold: 12, spanMs: 1_000, maxMs: 20_000 } as const;

/**
 * Waits until the machine is quiet before a timed run: busy under `threshold` % of all its cores for `spanMs` in a
 * row (every process counted: the system's own tail work — the relay's last passes, the consumers, the store's
 * checkpoint after a load — and anything else on the machine). Without it a run starting right after another
 * measures the previous one's leftovers as its own latency. Gives up after `maxMs` and says so; the run then goes
 * ahead on a busy machine, as before.
 */
export async function untilQuiet(
  options: { threshold?: number; spanMs?: number; maxMs?: number } = {},
  read: () => { total: number; idle: number } = machineTicks,
): Promise<Quiet> {
  const { threshold, spanMs, maxMs } = { ...QUIET, ...options };
  let waited = 0;
  let quietFor = 0;
  let busy = 100;
  let before = read();
  while (waited < maxMs) {
    await sleep(SAMPLE_MS);
    waited += SAMPLE_MS;
    const now = read();
    const total = now.total - before.total;
    busy = total > 0 ? Math.round((100 * (total - (now.idle - before.idle))) / total) : 0;
    before = now;
    quietFor = busy < threshold ? quietFor + SAMPLE_MS : 0;
    if (quietFor >= spanMs) return { waited_ms: waited, quiet: true, busy_percent: busy };
  }
  return { waited_ms: waited, quiet: false, busy_percent: busy };
}

/** untilQuiet, with a log line when the wait was long or gave up. */
export async function settle(log: (line: string) => void, what: string): Promise<Quiet> {
  const quiet = await untilQuiet();
  if (!quiet.quiet) log(`${what}: the machine is still ${quiet.busy_percent} % busy after ${quiet.waited_ms} ms; measuring anyway`);
  else if (quiet.waited_ms > 2_000) log(`${what}: waited ${(quiet.waited_ms / 1000).toFixed(1)} s for a quiet machine`);
  return quiet;
}
