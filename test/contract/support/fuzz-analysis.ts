import { ALL_ROUTES } from '../../../gateway/src/routes';
import { count, curlOf, interactionsOf, type Interaction, type OperationCounts } from './fuzz-report';
import type { createLiveValidator } from './live-validation';

/** What one schemathesis run showed, beyond its own verdict. */
export interface RunAnalysis {
  counts: Map<string, OperationCounts>;
  /** Interactions with a failed check (what schemathesis reports as failures, after the hooks' exceptions). */
  failures: Interaction[];
  /** Answers whose body breaks the document by ajv, with that as a failed check. */
  invalid: Interaction[];
  /** Operations that answered at least one 2xx whose body ajv validated. */
  validatedSuccess: Set<string>;
}

/**
 * Operations that can never answer 2xx, so none is expected of them: the discontinued message-credit routes, which
 * always answer 410 FEATURE_DISCONTINUED (success kind `gone` in the route table).
 */
export const NEVER_SERVED = new Set(
  ALL_ROUTES.filter((route) => route.success.kind === 'gone').map((route) => `${route.method} ${route.path}`),
);

export const ALL_OPERATIONS = ALL_ROUTES.map((route) => `${route.method} ${route.path}`);

export async function analyse(ndjsonFile: string, validator: ReturnType<typeof createLiveValidator>): Promise<RunAnalysis> {
  const analysis: RunAnalysis = { counts: new Map(), failures: [], invalid: [], validatedSuccess: new Set() };
  const documented = new Set(ALL_OPERATIONS);
  for await (const interaction of interactionsOf(ndjsonFile)) {
    // Requests with a method the path does not have (405 probes) are counted by no operation.
    if (documented.has(interaction.operation)) count(analysis.counts, interaction);
    if (interaction.failedChecks.length > 0) analysis.failures.push(interaction);
    const problem = validator.check(interaction);
    if (problem) {
      const check = { check: 'ajv', title: 'the answer breaks the document', message: problem };
      analysis.invalid.push({ ...interaction, failedChecks: [...interaction.failedChecks, check] });
    }
    // A 204 has no body to validate: its status alone is the documented answer.
    else if (interaction.status < 300 && (problem === null || interaction.status === 204))
      analysis.validatedSuccess.add(interaction.operation);
  }
  return analysis;
}

/** Operations with no 2xx answer in the run (the discontinued ones excepted). */
export const unserved = (analysis: RunAnalysis): string[] =>
  ALL_OPERATIONS.filter((operation) => !NEVER_SERVED.has(operation) && !(analysis.counts.get(operation)?.success ?? 0));

/** Each failure with what failed and a curl line to send it again. */
export const describeFailure = (failure: Interaction): string =>
  `${failure.operation} → ${failure.status} [${failure.phase}, ${failure.mode}]\n` +
  failure.failedChecks
    .map((check) => `    ${check.check}: ${check.title}${check.message ? ` — ${check.message.slice(0, 300)}` : ''}`)
    .join('\n') +
  `\n    ${curlOf(failure.request)}`;
