import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import { createTestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

/**
 * Property-based fuzzing of the whole public API from its own OpenAPI document (schemathesis, pinned, installed by
 * deploy/schemathesis.sh): the examples, coverage, fuzzing and stateful phases (the stateful one follows the
 * document's links from created records) over all 99 operations, with an all-scopes key of an enterprise
 * organization, so that every operation can succeed. Nothing is excluded: no operation can revoke the test's key.
 *
 * Checks: no 5xx; statuses, content types, headers and bodies as documented; every request the document calls
 * invalid refused with a 4xx. `positive_data_acceptance` is not run: schema-valid requests are rightly refused
 * when they name a well-formed id that does not exist (INVALID_REFERENCE 422), carry a random opaque cursor
 * (INVALID_CURSOR 400), or break a business rule (INVALID_STATUS, PLAN_RESTRICTION…), which a schema cannot say.
 */
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
];
/** Bounded for a 2-core machine: the run stops after this budget (the test's whole time stays under 4 minutes). */
const MAX_TIME_SECONDS = 170;
const MAX_EXAMPLES = 8;
const WORK_DIR = resolve(REPO_ROOT, '.local');
const REPORT_DIR = resolve(WORK_DIR, 'schemathesis');
const RESULTS_FILE = resolve(REPO_ROOT, 'bench-results/schemathesis.json');

interface RunReport {
  schemathesis_version: string;
  running_time: number;
  operations: { total: number; tested: number };
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: Array<{ code: string; title: string; count: number; operations: string[] }>;
  phases: Record<string, { status: string }>;
}

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    // Run from the git-ignored .local/: schemathesis keeps its cache (.schemathesis/) in the working directory.
    mkdirSync(WORK_DIR, { recursive: true });
    const child = spawn('bash', [resolve(REPO_ROOT, 'deploy/schemathesis.sh'), ...args], { cwd: WORK_DIR });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}

describe('the API against its OpenAPI document (schemathesis)', () => {
  it('answers every generated request as documented, with no server error', { timeout: 330_000 }, async () => {
    // Installed first (once per machine, cached), so that the time budget below is spent on requests.
    const install = await run(['--install-only']);
    expect(install.code, install.output).toBe(0);

    const org = await createTestOrg({ plan: 'enterprise' });
    const { baseUrl } = testSystem();
    rmSync(REPORT_DIR, { recursive: true, force: true });
    mkdirSync(REPORT_DIR, { recursive: true });
    const started = Date.now();
    const result = await run([
      '--config-file',
      resolve(REPO_ROOT, 'test/contract/schemathesis.toml'),
      'run',
      `${baseUrl}/api/docs/openapi.json`,
      '--header',
      `Authorization: Bearer ${org.key}`,
      '--checks',
      CHECKS.join(','),
      '--phases',
      'examples,coverage,fuzzing,stateful',
      '--max-examples',
      String(MAX_EXAMPLES),
      '--max-time',
      String(MAX_TIME_SECONDS),
      '--workers',
      '2',
      '--no-shrink',
      '--request-timeout',
      '15',
      '--report',
      'json,junit',
      '--report-dir',
      REPORT_DIR,
    ]);
    const reportFile = readdirSync(REPORT_DIR).find((name) => name.startsWith('json-'));
    expect(reportFile, result.output).toBeDefined();
    const report = JSON.parse(readFileSync(join(REPORT_DIR, reportFile ?? ''), 'utf8')) as RunReport;
    const figures = {
      schemathesis: report.schemathesis_version,
      seconds: Math.round((Date.now() - started) / 1000),
      operations: report.operations.tested,
      operations_total: report.operations.total,
      test_cases: report.test_cases.generated,
      failures: report.test_cases.unique_failures,
      failures_by_kind: Object.fromEntries(report.failures.map((failure) => [failure.code, failure.count])),
      phases: Object.fromEntries(Object.entries(report.phases).map(([name, phase]) => [name, phase.status])),
      checks: CHECKS,
    };
    mkdirSync(resolve(REPO_ROOT, 'bench-results'), { recursive: true });
    writeFileSync(RESULTS_FILE, `${JSON.stringify(figures, null, 2)}\n`);
    console.log(`schemathesis: ${JSON.stringify(figures)}`);

    const summary = result.output.slice(result.output.lastIndexOf('FAILURES') - 40);
    expect(report.operations.tested, result.output).toBe(99);
    expect(report.test_cases.unique_failures, summary).toBe(0);
    expect(report.test_cases.errored, summary).toBe(0);
    expect(result.code, summary).toBe(0);
  });
});
