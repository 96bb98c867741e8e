/**
 * `npm run bench:batch`: the cost of the event log and the throughput of batch upsert (issue 26), each measured
 * side by side in one run, on systems of their own. Writes bench-results/batch-events.json; `npm run bench:report`
 * renders it into BENCHMARKS.md.
 *
 * 1. POST /v1/contacts with CLIENTS clients for SECONDS s on a system whose event log is off (EVENTS_RETENTION_DAYS=0)
 *    and on one whose log is on: creates/s and latency of each, events stored/s and the stored size per event.
 * 2. A 10,000-row import through POST /v1/contacts/batch/upsert (batches of 100, CLIENTS in parallel) against
 *    single POST /v1/contacts creates of 2,000 rows with the same clients: items/s of each.
 */
import { BSON } from 'mongodb';
import mongoose from 'mongoose';
import { startOwnSystem, type OwnSystem } from './own-system';
import { measuredCommit, writeResult } from './results';

const CLIENTS = Number(process.env.BENCH_BATCH_CLIENTS ?? 8);
const SECONDS = Number(process.env.BENCH_BATCH_SECONDS ?? 10);
const IMPORT_ROWS = 10_000;
const SINGLE_ROWS = 2_000;
const BATCH = 100;

export interface BatchEventsFigures {
  measured_at: string;
  commit: string;
  dirty: boolean;
  clients: number;
  seconds: number;
  writes: { log: 'off' | 'on'; creates_per_s: number; p50_ms: number; p99_ms: number }[];
  events_stored_per_s: number;
  bytes_per_event: { document: number; storage: number | null; indexes: number | null };
  import: { rows: number; seconds: number; items_per_s: number; errors: number };
  single: { rows: number; seconds: number; creates_per_s: number };
}

const log = (line: string) => console.log(`[bench:batch ${new Date().toISOString().slice(11, 19)}] ${line}`);

function api(own: OwnSystem) {
  const base = own.system.baseUrl;
  return async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${own.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${path} answered ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as { data: unknown };
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

/** CLIENTS loops of POST /v1/contacts for SECONDS s. */
async function createLoad(own: OwnSystem, tag: string) {
  const post = api(own);
  const latencies: number[] = [];
  const end = Date.now() + SECONDS * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; Date.now() < end; i++) {
        const t0 = performance.now();
        await post('/v1/contacts', { name: `${tag} ${client}-${i}`, tags: ['bench'] });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    count: latencies.length,
    creates_per_s: round(latencies.length / elapsed),
    p50_ms: round(percentile(latencies, 50)),
    p99_ms: round(percentile(latencies, 99)),
  };
}

const round = (value: number) => Math.round(value * 10) / 10;

async function webhooksDb(own: OwnSystem) {
  return mongoose.createConnection(own.system.env.MONGODB_URI ?? '', { dbName: own.system.env.WEBHOOKS_DB_NAME }).asPromise();
}

/** Waits until `expected` events of the organization are stored; answers the seconds since `from`. */
async function untilStored(db: mongoose.Connection, orgId: string, expected: number, from: number): Promise<number> {
  const events = db.collection('events');
  for (;;) {
    if ((await events.countDocuments({ org_id: orgId })) >= expected) return (Date.now() - from) / 1000;
    if (Date.now() - from > 300_000) throw new Error('the events were not stored within 5 minutes');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function storageCost(db: mongoose.Connection, orgId: string) {
  const sample = await db.collection('events').find({ org_id: orgId }).limit(500).toArray();
  const document = sample.reduce((sum, doc) => sum + BSON.calculateObjectSize(doc), 0) / Math.max(1, sample.length);
  try {
    const stats = (await db.db!.command({ collStats: 'events' })) as { count: number; storageSize?: number; totalIndexSize?: number };
    const per = (value: number | undefined) => (value !== undefined && stats.count > 0 ? round(value / stats.count) : null);
    return { document: round(document), storage: per(stats.storageSize), indexes: per(stats.totalIndexSize) };
  } catch {
    return { document: round(document), storage: null, indexes: null };
  }
}

async function importRows(own: OwnSystem) {
  const post = api(own);
  let next = 0;
  let errors = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let batch = next++; batch < IMPORT_ROWS / BATCH; batch = next++) {
        const items = Array.from({ length: BATCH }, (_, i) => {
          const row = batch * BATCH + i;
          return { external_id: `erp-${row}`, name: `Imported ${row}`, email: `row${row}@import.example`, tags: ['import'] };
        });
        const answer = (await post('/v1/contacts/batch/upsert', { items })) as { data: { status: string }[] };
        errors += answer.data.filter((item) => item.status === 'error').length;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  return { rows: IMPORT_ROWS, seconds: round(seconds), items_per_s: round(IMPORT_ROWS / seconds), errors };
}

async function singleCreates(own: OwnSystem) {
  const post = api(own);
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let row = next++; row < SINGLE_ROWS; row = next++)
        await post('/v1/contacts', { name: `Single ${row}`, email: `single${row}@import.example` });
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  return { rows: SINGLE_ROWS, seconds: round(seconds), creates_per_s: round(SINGLE_ROWS / seconds) };
}

async function main(): Promise<void> {
  const writes: BatchEventsFigures['writes'] = [];
  log('system with the event log off');
  const off = await startOwnSystem({ crmReplicas: 1, webhooksReplicas: 1, envFor: { webhooks: { EVENTS_RETENTION_DAYS: '0' } } });
  try {
    const load = await createLoad(off, 'off');
    writes.push({ log: 'off', ...load });
  } finally {
    await off.stop();
  }
  log('system with the event log on');
  const on = await startOwnSystem({ crmReplicas: 1, webhooksReplicas: 1 });
  const db = await webhooksDb(on);
  try {
    const from = Date.now();
    const load = await createLoad(on, 'on');
    writes.push({ log: 'on', ...load });
    const storedIn = await untilStored(db, on.orgId, load.count, from);
    const bytes = await storageCost(db, on.orgId);
    log('import through batch upsert, then single creates');
    const imported = await importRows(on);
    const single = await singleCreates(on);
    const figures: BatchEventsFigures = {
      measured_at: new Date().toISOString(),
      ...measuredCommit(),
      clients: CLIENTS,
      seconds: SECONDS,
      writes: writes.map(({ log: side, creates_per_s, p50_ms, p99_ms }) => ({ log: side, creates_per_s, p50_ms, p99_ms })),
      events_stored_per_s: round(load.count / storedIn),
      bytes_per_event: bytes,
      import: imported,
      single,
    };
    writeResult('batch-events', figures);
    console.log(JSON.stringify(figures, null, 2));
  } finally {
    await db.close();
    await on.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
