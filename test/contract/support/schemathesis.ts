import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../../../deploy/lib/local-stack';
import { fuzzDocument } from './fuzz-document';
import { freshRecords, poolsToml } from './fuzz-config';
import type { FuzzOrg } from './fuzz-org';

type Json = Record<string, any>;

/**
 * Checks of every run: no 5xx; statuses, content types, headers and bodies as documented; every request the document
 * calls invalid refused with a 4xx. `positive_data_acceptance` is not run: schema-valid requests are rightly refused
 * for the rules no schema states (schemathesis_hooks.py lists them).
 */
export const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
];

export interface RunOptions {
  /** The served document (`/api/docs/openapi.json`). */
  document: Json;
  baseUrl: string;
  fuzz: FuzzOrg;
  /** Where the run's document, configuration and reports go (emptied first). */
  dir: string;
  seed: number;
  maxExamples: number;
  workers: number;
  /** Exploration only: the gate's runs end when their examples are spent, never on a clock. */
  maxTimeSeconds?: number;
}

export interface RunResult {
  code: number | null;
  output: string;
  /** schemathesis's JSON report: verdicts, failure groups, warnings. */
  report: Json;
  /** Every request and answer of the run, as schemathesis recorded them. */
  ndjsonFile: string;
}

/** Runs deploy/schemathesis.sh (the pinned schemathesis) with `args`, from `cwd`; resolves with its output. */
export function schemathesis(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    mkdirSync(cwd, { recursive: true });
    const child = spawn('bash', [resolve(REPO_ROOT, 'deploy/schemathesis.sh'), ...args], { cwd, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}

/** One schemathesis run over every operation of the fuzz organisation's document (fuzz-document.ts). */
export async function runSchemathesis(options: RunOptions): Promise<RunResult> {
  const { dir } = options;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const documentFile = join(dir, 'openapi.json');
  const configFile = join(dir, 'schemathesis.toml');
  writeFileSync(documentFile, JSON.stringify(fuzzDocument(options.document, options.fuzz.pools)));
  const base = readFileSync(resolve(REPO_ROOT, 'test/contract/schemathesis.toml'), 'utf8');
  writeFileSync(configFile, `${base}\n${poolsToml(options.document, options.fuzz.pools)}`);
  const freshFile = join(dir, 'fresh-records.json');
  writeFileSync(freshFile, JSON.stringify(freshRecords(options.document, options.fuzz.pools)));
  const args = [
    '--config-file',
    configFile,
    'run',
    documentFile,
    '--url',
    options.baseUrl,
    '--header',
    `Authorization: Bearer ${options.fuzz.org.key}`,
    '--checks',
    CHECKS.join(','),
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--max-examples',
    String(options.maxExamples),
    '--seed',
    String(options.seed),
    // No example database: a run replays nothing an earlier run found, so the seed alone decides what is sent.
    '--generation-database',
    'none',
    '--workers',
    String(options.workers),
    '--no-shrink',
    '--request-timeout',
    '15',
    '--report',
    'json,ndjson',
    '--report-dir',
    dir,
    ...(options.maxTimeSeconds ? ['--max-time', String(options.maxTimeSeconds)] : []),
  ];
  // The hooks (exceptions, fresh idempotency keys) come from test/contract/schemathesis_hooks.py.
  const { code, output } = await schemathesis(args, dir, {
    SCHEMATHESIS_HOOKS: 'schemathesis_hooks',
    CRM_FUZZ_FRESH_RECORDS: freshFile,
    PYTHONPATH: resolve(REPO_ROOT, 'test/contract'),
  });
  const reportFile = readdirSync(dir).find((name) => name.startsWith('json-'));
  const ndjsonFile = readdirSync(dir).find((name) => name.startsWith('ndjson-'));
  if (!reportFile || !ndjsonFile) throw new Error(`schemathesis wrote no report (exit ${code}):\n${output.slice(-4000)}`);
  return { code, output, report: JSON.parse(readFileSync(join(dir, reportFile), 'utf8')) as Json, ndjsonFile: join(dir, ndjsonFile) };
}
