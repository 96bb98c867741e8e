// Preload (NODE_OPTIONS=--import) that records a process's peak V8 heap into $HEAP_PEAK_DIR/<name>-<pid>.json, to
// size an old-space limit from measurement: the largest used heap seen (sampled every 100 ms, garbage included) and
// the largest used heap right after a full (mark-compact) collection (what was alive then), beside the largest RSS.
// Written every second and at exit, so a killed process leaves its last figures.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import process from 'node:process';
import { setInterval } from 'node:timers';
import { getHeapStatistics } from 'node:v8';

const dir = process.env.HEAP_PEAK_DIR;
// Only the system's processes (compiled or from source), not the benchmark runner that shares its NODE_OPTIONS.
const entry = process.argv[1] ?? '';
const match = /(?:services\/(\w+)|(gateway)|tools\/(dev))\/src\//.exec(entry);
if (dir && match) {
  const name = match[1] ?? match[2] ?? 'simulator';
  const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
  const peak = { name, pid: process.pid, used_mb: 0, after_full_gc_mb: 0, rss_mb: 0, limit_mb: mb(getHeapStatistics().heap_size_limit) };
  const sample = () => {
    peak.used_mb = Math.max(peak.used_mb, mb(getHeapStatistics().used_heap_size));
    peak.rss_mb = Math.max(peak.rss_mb, mb(process.memoryUsage.rss()));
  };
  new PerformanceObserver((list) => {
    if (list.getEntries().some((gc) => gc.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR))
      peak.after_full_gc_mb = Math.max(peak.after_full_gc_mb, mb(getHeapStatistics().used_heap_size));
  }).observe({ entryTypes: ['gc'] });
  mkdirSync(dir, { recursive: true });
  const write = () => writeFileSync(join(dir, `${name}-${process.pid}.json`), `${JSON.stringify(peak)}\n`);
  setInterval(sample, 100).unref();
  setInterval(write, 1000).unref();
  process.on('exit', () => {
    sample();
    write();
  });
}
