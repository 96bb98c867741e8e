import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../deploy/lib/local-stack';

/** The system a benchmark measures: BASE_URL / API_KEY, or the one `npm start` runs with its demo key. */
export function benchTarget(): { baseUrl: string; key: string } {
  const keyFile = resolve(REPO_ROOT, '.local/demo-key.json');
  const key = process.env.API_KEY ?? (existsSync(keyFile) ? (JSON.parse(readFileSync(keyFile, 'utf8')) as { api_key: string }).api_key : undefined);
  if (!key) throw new Error('Set API_KEY (and BASE_URL), or run `npm start` first so .local/demo-key.json exists.');
  return { baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:8080', key };
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const index = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return Math.round((sortedMs[index] ?? NaN) * 100) / 100;
}

export function summarize(samplesMs: number[], wallMs: number) {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return { requests: sorted.length, p50_ms: percentile(sorted, 50), p90_ms: percentile(sorted, 90), p99_ms: percentile(sorted, 99), max_ms: percentile(sorted, 100), rps: Math.round((sorted.length / wallMs) * 1000 * 10) / 10 };
}

export function writeResults(name: string, results: unknown): string {
  const dir = resolve(REPO_ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const file = resolve(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ measured_at: new Date().toISOString(), node: process.version, results }, null, 2)}\n`);
  return file;
}
