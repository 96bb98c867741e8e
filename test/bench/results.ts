import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import type { AgentFigures } from './agents';
import type { BatchEventsFigures } from './batch-events';
import type { BroadcastFigures } from './broadcasts';
import type { CapacityFigures } from './capacity';
import type { DegradedFigures } from './degraded';
import type { ProfileFigures } from './profile-summary';
import type { BenchConfig } from './config';
import type { RouteFigures } from './http-scenarios';
import type { ReadsFigures } from './reads';
import type { ResourceFigures } from './resources';
import type { ScaleOutFigures } from './scale-out';
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
    /** 1-minute load average when the run started and ended (absent in older runs). */
    load_average?: { start: number; end: number };
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
  /** 1 + 1 vs 2 + 2 behind a round-robin proxy, when it ran. */
  scaleout?: ScaleOutFigures;
  /** From `npm run profile -- <route>` (bench-results/profile-<route>.json), by route key. */
  profiles: Record<string, ProfileFigures>;
  /** From `npm run bench:agents`, when it ran. */
  agents?: AgentFigures;
  /** From `npm run bench:capacity`, when it ran. */
  capacity?: CapacityFigures;
  /** From `npm run bench:batch`, when it ran. */
  'batch-events'?: BatchEventsFigures;
  /** bench-results/webhooks-notes.md, written by hand: what a profile of the webhook figures found. */
  webhookNotes?: string;
  /** bench-results/processes-notes.md, written by hand: where the memory of the processes goes. */
  processNotes?: string;
  /** bench-results/broadcasts-notes.md, written by hand: what a profile of the broadcast figures found. */
  broadcastNotes?: string;
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

/** A profile's summary, beside the run's own results (its own file per route). */
export function writeProfile(key: string, figures: ProfileFigures): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = resolve(RESULTS_DIR, `profile-${key}.json`);
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  return file;
}

function readProfiles(): Record<string, ProfileFigures> {
  const files = readdirSync(RESULTS_DIR).filter((file) => /^profile-[\w-]+\.json$/.test(file));
  return Object.fromEntries(
    files.map((file) => [
      file.slice('profile-'.length, -'.json'.length),
      JSON.parse(readFileSync(resolve(RESULTS_DIR, file), 'utf8')) as ProfileFigures,
    ]),
  );
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
    ...notes('webhookNotes', 'webhooks-notes.md'),
    ...notes('processNotes', 'processes-notes.md'),
    ...notes('broadcastNotes', 'broadcasts-notes.md'),
    ...(existsSync(resolve(RESULTS_DIR, 'batch-events.json')) ? { 'batch-events': read('batch-events') } : {}),
    ...(existsSync(resolve(RESULTS_DIR, 'scaleout.json')) ? { scaleout: read('scaleout') } : {}),
    profiles: readProfiles(),
  };
}

/** A section's notes, written by hand beside the figures, when the file exists. */
function notes(key: 'webhookNotes' | 'processNotes' | 'broadcastNotes', file: string): Partial<BenchResults> {
  const path = resolve(RESULTS_DIR, file);
  return existsSync(path) ? { [key]: readFileSync(path, 'utf8').trim() } : {};
}

/** `npx tsx test/bench/startup.ts` on its own writes its own shape, `{measured_at, runs, results}`, to the same file. */
function startupOf(file: StartupFigures | { results?: unknown }): StartupFigures {
  return 'measured' in file ? file : { measured: true, result: file.results ?? file };
}
