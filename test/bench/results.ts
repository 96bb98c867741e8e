import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import type { AgentFigures } from './agents';
import type { BatchEventsFigures } from './batch-events';
import type { BroadcastFigures } from './broadcasts';
import type { CapacityFigures } from './capacity';
import type { DegradedFigures } from './degraded';
import type { BenchConfig } from './config';
import type { RouteFigures } from './http-scenarios';
import type { ReadsFigures } from './reads';
import type { ResourceFigures } from './resources';
import type { StartupFigures } from './startup-hook';
import type { WebhookFigures } from './webhooks';

export const RESULTS_DIR = resolve(REPO_ROOT, 'bench-results');

/** One file per part of the run; BENCHMARKS.md is rendered from exactly these. */
export interface BenchResults {
  run: {
    measured_at: string;
    commit: string;
    /** The working tree differed from the commit (the figures are of what was on disk). */
    dirty: boolean;
    duration_s: number;
    machine: { cpus: number; cpu_model: string; node: string };
    config: BenchConfig;
    seeded: { contacts: number; deals: number };
  };
  http: { routes: RouteFigures[] };
  webhooks: WebhookFigures;
  resources: ResourceFigures;
  startup: StartupFigures;
  /** From `npm run bench:broadcasts`, when it ran. */
  broadcasts?: BroadcastFigures;
  /** From `npm run bench:degraded`, when it ran. */
  degraded?: DegradedFigures;
  /** From `npm run bench:reads` (the last step of `npm run bench`), when it ran. */
  reads?: ReadsFigures;
  /** From `npm run bench:agents`, when it ran. */
  agents?: AgentFigures;
  /** From `npm run bench:capacity`, when it ran. */
  capacity?: CapacityFigures;
  /** From `npm run bench:batch`, when it ran. */
  'batch-events'?: BatchEventsFigures;
  /** bench-results/webhooks-notes.md, written by hand: what a profile of the webhook figures found. */
  webhookNotes?: string;
}

const git = (...args: string[]): string => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();

/** The commit the figures were measured at, and whether the working tree differed from it. */
export function measuredCommit(): { commit: string; dirty: boolean } {
  return { commit: git('rev-parse', '--short', 'HEAD'), dirty: git('status', '--porcelain', '--untracked-files=no') !== '' };
}

export function writeResult<K extends keyof BenchResults>(name: K, value: BenchResults[K]): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = resolve(RESULTS_DIR, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return file;
}

export function readResults(): BenchResults {
  const read = <K extends keyof BenchResults>(name: K): BenchResults[K] =>
    JSON.parse(readFileSync(resolve(RESULTS_DIR, `${name}.json`), 'utf8')) as BenchResults[K];
  return {
    run: read('run'),
    http: read('http'),
    webhooks: read('webhooks'),
    resources: read('resources'),
    startup: startupOf(read('startup')),
    ...(existsSync(resolve(RESULTS_DIR, 'broadcasts.json')) ? { broadcasts: read('broadcasts') } : {}),
    ...(existsSync(resolve(RESULTS_DIR, 'degraded.json')) ? { degraded: read('degraded') } : {}),
    ...(existsSync(resolve(RESULTS_DIR, 'reads.json')) ? { reads: read('reads') } : {}),
    ...(existsSync(resolve(RESULTS_DIR, 'agents.json')) ? { agents: read('agents') } : {}),
    ...(existsSync(resolve(RESULTS_DIR, 'capacity.json')) ? { capacity: read('capacity') } : {}),
    ...(existsSync(resolve(RESULTS_DIR, 'webhooks-notes.md'))
      ? { webhookNotes: readFileSync(resolve(RESULTS_DIR, 'webhooks-notes.md'), 'utf8').trim() }
      : {}),
    ...(existsSync(resolve(RESULTS_DIR, 'batch-events.json')) ? { 'batch-events': read('batch-events') } : {}),
  };
}

/** `npx tsx test/bench/startup.ts` on its own writes its own shape, `{measured_at, runs, results}`, to the same file. */
function startupOf(file: StartupFigures | { results?: unknown }): StartupFigures {
  return 'measured' in file ? file : { measured: true, result: file.results ?? file };
}
