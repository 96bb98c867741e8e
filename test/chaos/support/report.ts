import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { REPO_ROOT } from '../../../deploy/lib/local-stack';
import type { ChaosProfile } from './context';
import type { ScenarioRow } from './run-scenario';

const COLUMNS: Array<[string, (row: ScenarioRow) => string | number]> = [
  ['scenario', (row) => row.scenario],
  ['writes acked', (row) => row.writesAcked],
  ['writes lost', (row) => row.writesLost],
  ['events expected', (row) => row.eventsExpected],
  ['events lost', (row) => row.eventsLost],
  ['deliveries lost', (row) => row.deliveriesLost],
  ['duplicates', (row) => row.duplicates],
  ['bad signatures', (row) => row.badSignatures],
  ['failed requests', (row) => row.failedRequests],
  ['recovery s', (row) => row.recoverySeconds ?? '-'],
];

/** The table as Markdown, one row per scenario, then each scenario's failures and notes. */
export function formatTable(rows: ScenarioRow[]): string {
  const header = `| ${COLUMNS.map(([name]) => name).join(' | ')} |`;
  const rule = `|${COLUMNS.map(() => '---').join('|')}|`;
  const lines = rows.map((row) => `| ${COLUMNS.map(([, value]) => value(row)).join(' | ')} |`);
  const details = rows.map(
    (row) =>
      `- ${row.scenario}: ${row.notes.join('; ')}; failures ${JSON.stringify(row.failures)}; load balancer retries ${row.balancerRetries}` +
      (row.exempted ? `; ${row.exempted} deliveries exempt (raised while paused)` : '') +
      (row.lostSamples.length ? `; LOST ${row.lostSamples.join(', ')}` : ''),
  );
  return [header, rule, ...lines, '', ...details].join('\n');
}

/** bench-results/chaos.json for the full profile; the short one (inside npm test) stays out of the repository. */
export function writeReport(profile: ChaosProfile, rows: ScenarioRow[]): string {
  const file = profile === 'full' ? resolve(REPO_ROOT, 'bench-results/chaos.json') : resolve(REPO_ROOT, '.local/chaos/chaos-short.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ profile, measured_at: new Date().toISOString(), scenarios: rows }, null, 2)}\n`);
  return file;
}
