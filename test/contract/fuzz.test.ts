import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import { testSystem } from '../support/system';
import { ALL_OPERATIONS, analyse, describeFailure, NEVER_SERVED, unserved } from './support/fuzz-analysis';
import { createFuzzOrg, type FuzzOrg } from './support/fuzz-org';
import { countsTable } from './support/fuzz-report';
import { createLiveValidator } from './support/live-validation';
import { loadRegressions, replay } from './support/regressions';
import { CHECKS, runSchemathesis, schemathesis } from './support/schemathesis';

/**
 * The contract gate inside `npm test`: the API against its own OpenAPI document, deterministically. The same commit
 * sends the same requests and gets the same verdict: a fixed seed, a fixed number of examples per operation, no
 * example database, one worker, no time budget. Exploration with random seeds is `npm run fuzz` (explore.fuzz.ts),
 * and every failure it finds is recorded in regressions.json, which this gate replays first.
 *
 * The run: schemathesis's examples, coverage, fuzzing and stateful phases over every operation, as an enterprise
 * organisation seeded with records for every operation (fuzz-org.ts), whose ids the requests use (fuzz-config.ts,
 * fuzz-document.ts). It fails on any failed check (CHECKS), on a schemathesis warning that the document and the
 * server disagree (valid data refused: validation_mismatch) or that an operation only met missing records
 * (missing_test_data), on an operation that never answered 2xx, and on any answer ajv finds breaking the document.
 */
const SEED = 19_2026;
const MAX_EXAMPLES = 8;
const RUN_DIR = resolve(REPO_ROOT, '.local/schemathesis/gate');
const RESULTS_FILE = resolve(REPO_ROOT, 'bench-results/schemathesis.json');
/** Warnings that say the document and the server disagree, or that the fuzz did not reach real records. */
const BLOCKING_WARNINGS = ['validation_mismatch', 'missing_test_data'];

describe('the API against its OpenAPI document (schemathesis, deterministic)', () => {
  let fuzz: FuzzOrg;
  let document: Record<string, any>;
  let validator: ReturnType<typeof createLiveValidator>;

  beforeAll(async () => {
    // Installed first (once per machine, cached), so that no test's time is spent on it.
    const install = await schemathesis(['--install-only'], RUN_DIR);
    if (install.code !== 0) throw new Error(install.output);
    fuzz = await createFuzzOrg();
    document = (await (await fetch(`${testSystem().baseUrl}/api/docs/openapi.json`)).json()) as Record<string, any>;
    validator = createLiveValidator(document);
  }, 300_000);

  afterAll(() => fuzz?.close());

  it('answers every recorded regression as documented (test/contract/regressions.json)', async () => {
    const { baseUrl } = testSystem();
    const problems: string[] = [];
    for (const regression of loadRegressions()) {
      const problem = await replay(regression, { baseUrl, key: fuzz.org.key, pools: fuzz.pools, document, validator });
      if (problem) problems.push(problem);
    }
    expect(problems).toEqual([]);
  });

  it(
    'answers every generated request as documented, serves every operation, and never breaks the document',
    { timeout: 900_000 },
    async () => {
      const started = Date.now();
      const run = await runSchemathesis({
        document,
        baseUrl: testSystem().baseUrl,
        fuzz,
        dir: RUN_DIR,
        seed: SEED,
        maxExamples: MAX_EXAMPLES,
        workers: 1,
      });
      const analysis = await analyse(run.ndjsonFile, validator);
      const warnings = Object.fromEntries(
        BLOCKING_WARNINGS.map((kind) => [
          kind,
          ((run.report.warnings?.[kind] ?? []) as string[]).filter((operation) => !NEVER_SERVED.has(operation)),
        ]),
      );
      const figures = {
        schemathesis: run.report.schemathesis_version,
        seed: SEED,
        max_examples: MAX_EXAMPLES,
        seconds: Math.round((Date.now() - started) / 1000),
        operations: run.report.operations?.tested,
        requests: [...analysis.counts.values()].reduce((sum, counts) => sum + counts.requests, 0),
        failures: run.report.test_cases?.unique_failures,
        warnings: run.report.warnings,
        answers_breaking_the_document: analysis.invalid.length,
        operations_without_2xx: unserved(analysis),
        checks: CHECKS,
        per_operation: Object.fromEntries([...analysis.counts.entries()].sort(([a], [b]) => a.localeCompare(b))),
      };
      mkdirSync(resolve(REPO_ROOT, 'bench-results'), { recursive: true });
      writeFileSync(RESULTS_FILE, `${JSON.stringify(figures, null, 2)}\n`);
      console.log(`schemathesis, seed ${SEED}: requests per operation\n${countsTable(analysis.counts)}`);

      const tail = run.output.slice(-3000);
      expect(run.report.operations?.tested, tail).toBe(ALL_OPERATIONS.length);
      expect(analysis.failures.map(describeFailure), tail).toEqual([]);
      expect(run.report.test_cases?.unique_failures, tail).toBe(0);
      expect(run.report.test_cases?.errored, tail).toBe(0);
      expect(warnings, tail).toEqual({ validation_mismatch: [], missing_test_data: [] });
      expect(unserved(analysis)).toEqual([]);
      expect(analysis.invalid.map(describeFailure)).toEqual([]);
      const unvalidated = ALL_OPERATIONS.filter((operation) => !NEVER_SERVED.has(operation) && !analysis.validatedSuccess.has(operation));
      expect(unvalidated, 'operations with no 2xx answer validated by ajv').toEqual([]);
      expect(run.code, tail).toBe(0);
    },
  );
});
