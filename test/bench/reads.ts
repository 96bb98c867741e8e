/**
 * `npm run bench:reads` (also the last step of `npm run bench`): the contact reads a user feels, as the organization
 * grows to 1,000, 10,000, 50,000 and 100,000 contacts, on a system of its own (one gateway, one CRM replica) and the
 * default store. Contacts are imported through the storage layer in bulk between sizes; at each size every read is
 * called by one client, one request at a time, and its median, p90 and first call are kept, beside the driver-level
 * probe of the same query shapes (reads-probe.ts). Writes bench-results/reads.json and renders BENCHMARKS.md again
 * when the other result files are there. Knobs: BENCH_READS_SIZES (e.g. `1000,10000`), BENCH_READS_CALLS.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import { apiClient, type ApiClient } from './api-client';
import { machineInfo } from './config';
import { startOwnSystem } from './own-system';
import { probeStore, type ProbeFigures } from './reads-probe';
import { importContactsRange, SEARCH_TERM, TAG_ONE_PERCENT } from './reads-seed';
import { renderReport } from './report';
import { measuredCommit, readResults, RESULTS_DIR, writeResult } from './results';
import { percentile, round } from './stats';

export const READS = ['first page', 'page 21', 'sort=name', `search=${SEARCH_TERM}`, `tag= (1 %)`, 'by id'] as const;
export type ReadName = (typeof READS)[number];

export interface ReadFigure {
  p50_ms: number;
  p90_ms: number;
  /** The first call at this size: the service had not read this list at this size yet. */
  first_ms: number;
}

export interface ReadsSize {
  contacts: number;
  reads: Record<ReadName, ReadFigure>;
  probe: ProbeFigures;
  /** 1-minute load average of the machine before and after this size's calls (2 cores: 2 is a busy machine). */
  load: [number, number];
}

export interface ReadsFigures {
  measured_at: string;
  commit: string;
  machine: ReturnType<typeof machineInfo>;
  calls: number;
  sizes: ReadsSize[];
}

const log = (line: string) => console.log(`[bench:reads ${new Date().toISOString().slice(11, 19)}] ${line}`);
const load1 = () => round(loadavg()[0] ?? 0, 2);

const sizesOf = (raw = process.env.BENCH_READS_SIZES ?? '1000,10000,50000,100000') =>
  raw.split(',').map((part) => {
    const size = Number(part.trim());
    if (!Number.isInteger(size) || size < 100) throw new Error(`BENCH_READS_SIZES must list sizes ≥ 100, got "${raw}"`);
    return size;
  });

async function main(): Promise<void> {
  const sizes = sizesOf().sort((a, b) => a - b);
  const calls = Number(process.env.BENCH_READS_CALLS ?? 41);
  log(`starting a system of its own (1 gateway, 1 crm replica); sizes ${sizes.join(', ')}; ${calls} calls per read`);
  const own = await startOwnSystem({ crmReplicas: 1, webhooksReplicas: 1 });
  const figures: ReadsSize[] = [];
  try {
    const api = apiClient(own.system.baseUrl, own.key);
    const now = Date.now();
    const ids: string[] = [];
    for (const size of sizes) {
      const started = Date.now();
      ids.push(...(await importContactsRange(own.contacts, own.orgId, ids.length, size, now)));
      log(`${size.toLocaleString('en')} contacts (imported in ${Date.now() - started} ms)`);
      const before = load1();
      const reads = await measureReads(api, ids, calls);
      const probe = await probeStore(own.crmDb, own.orgId, SEARCH_TERM, size <= 50_000 ? 3 : 1);
      figures.push({ contacts: size, reads, probe, load: [before, load1()] });
      for (const read of READS)
        log(`  ${read.padEnd(16)} p50 ${reads[read].p50_ms} ms  p90 ${reads[read].p90_ms} ms  first ${reads[read].first_ms} ms`);
      log(`  driver probe: ${JSON.stringify(probe)}; load ${before} → ${load1()}`);
    }
  } finally {
    await own.stop();
  }
  writeResult('reads', {
    measured_at: new Date().toISOString(),
    commit: measuredCommit().commit,
    machine: machineInfo(),
    calls,
    sizes: figures,
  });
  if (['run', 'http', 'webhooks', 'resources', 'startup'].every((name) => existsSync(resolve(RESULTS_DIR, `${name}.json`)))) {
    writeFileSync(resolve(REPO_ROOT, 'BENCHMARKS.md'), renderReport(readResults()));
    log('BENCHMARKS.md rendered again with these figures');
  }
}

/** Each read `calls` times, one after the other; `by id` asks for a different contact each time. */
async function measureReads(api: ApiClient, ids: string[], calls: number): Promise<Record<ReadName, ReadFigure>> {
  const page21 = await cursorOfPage(api, 21);
  const paths: Record<ReadName, (i: number) => string> = {
    'first page': () => '/v1/contacts',
    'page 21': () => `/v1/contacts?cursor=${encodeURIComponent(page21)}`,
    'sort=name': () => '/v1/contacts?sort=name&order=asc',
    [`search=${SEARCH_TERM}`]: () => `/v1/contacts?search=${SEARCH_TERM}`,
    'tag= (1 %)': () => `/v1/contacts?tag=${TAG_ONE_PERCENT}`,
    'by id': (i: number) => `/v1/contacts/${ids[(i * 7_919) % ids.length]}`,
  } as Record<ReadName, (i: number) => string>;
  const out = {} as Record<ReadName, ReadFigure>;
  for (const read of READS) {
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      await api.call('GET', paths[read](i));
      times.push(performance.now() - started);
    }
    const [first = NaN, ...rest] = times;
    const sorted = rest.sort((a, b) => a - b);
    out[read] = { p50_ms: round(percentile(sorted, 50)), p90_ms: round(percentile(sorted, 90)), first_ms: round(first) };
  }
  return out;
}

/** The cursor of page `n` (25 per page, newest first), walked to once. */
async function cursorOfPage(api: ApiClient, n: number): Promise<string> {
  let cursor = '';
  for (let page = 1; page < n; page++) {
    const answer = await api.call<{ meta: { next_cursor?: string } }>(
      'GET',
      `/v1/contacts${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    cursor = answer.meta.next_cursor ?? '';
    if (!cursor) throw new Error(`the list ended before page ${n}`);
  }
  return cursor;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
