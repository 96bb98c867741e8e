import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../deploy/lib/local-stack';
import { testSystem } from '../support/system';
import { analyse, describeFailure, unserved } from './support/fuzz-analysis';
import { unexplainedRefusals } from './support/explained-refusals';
import { createFuzzOrg } from './support/fuzz-org';
import { countsTable, type Interaction } from './support/fuzz-report';
import { createLiveValidator } from './support/live-validation';
import { recordRegressions, regressionOf, type Regression } from './support/regressions';
import { runSchemathesis, schemathesis } from './support/schemathesis';

/**
 * `npm run fuzz` (not part of npm test): explores the API with random seeds for FUZZ_MINUTES (default 10), one
 * schemathesis run after another, each on a freshly seeded organisation and with more examples per operation than
 * the gate. Every failure is printed with a curl line that sends it again and recorded in regressions.json, which the
 * deterministic gate (fuzz.test.ts) then replays until it is fixed. Writes its figures to
 * bench-results/fuzz-exploration.json.
 */
const MINUTES = Number(process.env.FUZZ_MINUTES ?? 10);
/** Longest single run, so that the organisation is seeded again now and then (runs use up its drafts, deals…). */
const RUN_SECONDS = Math.min(600, MINUTES * 60);
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 50);
const WORKERS = Number(process.env.FUZZ_WORKERS ?? 2);
const RUN_DIR = resolve(REPO_ROOT, '.local/schemathesis/explore');

describe('exploration with random seeds', () => {
  it(`fuzzes for ${MINUTES} minutes and records what it finds`, { timeout: (MINUTES + 15) * 60_000 }, async () => {
    const install = await schemathesis(['--install-only'], RUN_DIR);
    expect(install.code, install.output).toBe(0);
    const { baseUrl } = testSystem();
    const deadline = Date.now() + MINUTES * 60_000;
    const runs: Array<{
      seed: number;
      seconds: number;
      requests: number;
      failures: number;
      warnings: unknown;
      unexplained_refusals: number;
      unserved: string[];
    }> = [];
    const recorded: Regression[] = [];
    const found: Interaction[] = [];
    const refused: Interaction[] = [];
    while (Date.now() < deadline - 30_000) {
      const seed = Math.floor(Math.random() * 2 ** 31);
      const started = Date.now();
      const fuzz = await createFuzzOrg();
      try {
        const document = (await (await fetch(`${baseUrl}/api/docs/openapi.json`)).json()) as Record<string, any>;
        const seconds = Math.max(60, Math.min(RUN_SECONDS, Math.floor((deadline - Date.now()) / 1000)));
        const run = await runSchemathesis({
          document,
          baseUrl,
          fuzz,
          dir: RUN_DIR,
          seed,
          maxExamples: MAX_EXAMPLES,
          workers: WORKERS,
          maxTimeSeconds: seconds,
        });
        const analysis = await analyse(run.ndjsonFile, createLiveValidator(document));
        // An answer ajv finds breaking the document is a failure too, even when schemathesis's own validator passed it.
        const failures = [...analysis.failures, ...analysis.invalid];
        for (const failure of failures) console.log(`FAILURE (seed ${seed})\n${describeFailure(failure)}`);
        found.push(...failures);
        const added = recordRegressions(
          failures.map((failure) =>
            regressionOf(failure, fuzz.pools, `${new Date().toISOString().slice(0, 10)}, npm run fuzz, seed ${seed}`),
          ),
        );
        recorded.push(...added);
        // validation_mismatch: excused only where every refusal is a rule no schema can state (explained-refusals.ts).
        const mismatched = (run.report.warnings?.validation_mismatch ?? []) as string[];
        const unexplained = await unexplainedRefusals(run.ndjsonFile, mismatched);
        for (const refusal of unexplained)
          console.log(`UNEXPLAINED REFUSAL (seed ${seed})\n${describeFailure(refusal)}\n    answer: ${refusal.body?.slice(0, 300)}`);
        refused.push(...unexplained);
        const requests = [...analysis.counts.values()].reduce((sum, counts) => sum + counts.requests, 0);
        runs.push({
          seed,
          seconds: Math.round((Date.now() - started) / 1000),
          requests,
          failures: failures.length,
          warnings: run.report.warnings,
          unexplained_refusals: unexplained.length,
          unserved: unserved(analysis),
        });
        console.log(`run with seed ${seed}: ${requests} requests, ${failures.length} failures\n${countsTable(analysis.counts)}`);
      } finally {
        await fuzz.close();
      }
    }
    const figures = {
      minutes: MINUTES,
      max_examples: MAX_EXAMPLES,
      runs,
      requests: runs.reduce((sum, run) => sum + run.requests, 0),
      failures: found.length,
      unexplained_refusals: refused.map((refusal) => `${refusal.operation} → ${refusal.status}: ${refusal.body?.slice(0, 300)}`),
      regressions_recorded: recorded.map((regression) => `${regression.id} ${regression.operation}: ${regression.failure}`),
    };
    mkdirSync(resolve(REPO_ROOT, 'bench-results'), { recursive: true });
    writeFileSync(resolve(REPO_ROOT, 'bench-results/fuzz-exploration.json'), `${JSON.stringify(figures, null, 2)}\n`);
    console.log(
      `exploration: ${runs.length} runs, ${figures.requests} requests, ${found.length} failures, ${refused.length} unexplained refusals; recorded: ${JSON.stringify(figures.regressions_recorded, null, 2)}`,
    );
    // Exploration reports; it does not gate. Its findings gate through regressions.json.
    expect(runs.length).toBeGreaterThan(0);
  });
});
