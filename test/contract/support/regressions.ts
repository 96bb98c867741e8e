import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../../../deploy/lib/local-stack';
import type { Interaction } from './fuzz-report';
import type { createLiveValidator } from './live-validation';

type Json = Record<string, any>;

/**
 * The recorded regressions of the contract fuzz (test/contract/regressions.json): every failure `npm run fuzz` finds is
 * written there before it is fixed, and the deterministic gate (fuzz.test.ts) replays each one on every run. Ids of the
 * fuzz organisation's records are kept as `{{pool.index}}` (fuzz-org.ts), so a case replays on a fresh organisation.
 */
export interface Regression {
  id: string;
  /** When, and by which run or report, it was found. */
  found: string;
  operation: string;
  /** The check that failed and what it said. */
  failure: string;
  request: { method: string; path: string; headers?: Record<string, string>; body?: string };
  /** refused: a 4xx in the envelope is the only right answer; documented: any documented answer with a valid body. */
  expect: 'refused' | 'documented';
}

export const REGRESSIONS_FILE = resolve(REPO_ROOT, 'test/contract/regressions.json');

export const loadRegressions = (): Regression[] => JSON.parse(readFileSync(REGRESSIONS_FILE, 'utf8')) as Regression[];

const PLACEHOLDER = /\{\{(\w+)\.(\d+)\}\}/g;

/** `{{pool.index}}` → the id of this organisation's record. */
function fill(text: string, pools: Record<string, string[]>): string {
  return text.replace(PLACEHOLDER, (whole, pool: string, index: string) => pools[pool]?.[Number(index)] ?? whole);
}

/** What is wrong with the answer to a regression's request today, or null. */
export async function replay(
  regression: Regression,
  target: {
    baseUrl: string;
    key: string;
    pools: Record<string, string[]>;
    document: Json;
    validator: ReturnType<typeof createLiveValidator>;
  },
): Promise<string | null> {
  const { request } = regression;
  const url = `${target.baseUrl}${fill(request.path, target.pools)}`;
  const headers: Record<string, string> = { ...request.headers, authorization: `Bearer ${target.key}` };
  const body = request.body === undefined ? undefined : fill(request.body, target.pools);
  const response = await fetch(url, { method: request.method, headers, body });
  const text = await response.text();
  const where = `${regression.id} ${regression.operation}`;
  if (response.status >= 500) return `${where}: ${response.status} ${text.slice(0, 200)}`;
  const [method = '', path = ''] = regression.operation.split(' ');
  const documented = target.document.paths?.[path]?.[method.toLowerCase()]?.responses?.[String(response.status)];
  if (!documented) return `${where}: ${response.status} is not documented for the operation`;
  if (regression.expect === 'refused' && (response.status < 400 || response.status >= 500))
    return `${where}: ${response.status}, expected a refusal (4xx): ${text.slice(0, 200)}`;
  const problem = target.validator.check({
    operation: regression.operation,
    phase: 'regression',
    mode: '',
    request: { method: request.method, url, headers, body },
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: text,
    failedChecks: [],
  });
  return problem ? `${where}: the ${response.status} answer breaks the document: ${problem}` : null;
}

/** A new regression from a failed interaction, with the organisation's ids made placeholders. */
export function regressionOf(interaction: Interaction, pools: Record<string, string[]>, found: string): Regression {
  const placeholders = new Map<string, string>();
  for (const [pool, ids] of Object.entries(pools))
    ids.forEach((value, index) => placeholders.has(value) || placeholders.set(value, `{{${pool}.${index}}}`));
  const generalise = (text: string) => text.replace(/\b[a-z]{2,3}_[0-9A-Za-z]{22}\b/g, (value) => placeholders.get(value) ?? value);
  const url = new URL(interaction.request.url);
  const headers = Object.fromEntries(
    Object.entries(interaction.request.headers).filter(([name]) => ['content-type', 'idempotency-key'].includes(name.toLowerCase())),
  );
  const failure = interaction.failedChecks.map((check) => `${check.check}: ${check.title}`).join('; ');
  return {
    id: '',
    found,
    operation: interaction.operation,
    failure,
    request: {
      method: interaction.request.method,
      path: generalise(`${url.pathname}${url.search}`),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(interaction.request.body !== undefined ? { body: generalise(interaction.request.body) } : {}),
    },
    expect: interaction.mode === 'negative' ? 'refused' : 'documented',
  };
}

/** Appends the regressions whose operation and failure are not yet recorded, numbered on; returns those added. */
export function recordRegressions(found: Regression[]): Regression[] {
  const known = loadRegressions();
  const seen = new Set(known.map((regression) => `${regression.operation} ${regression.failure}`));
  const added: Regression[] = [];
  for (const regression of found) {
    const key = `${regression.operation} ${regression.failure}`;
    if (seen.has(key)) continue;
    seen.add(key);
    added.push({ ...regression, id: `R${known.length + added.length + 1}` });
  }
  if (added.length > 0) writeFileSync(REGRESSIONS_FILE, `${JSON.stringify([...known, ...added], null, 2)}\n`);
  return added;
}
