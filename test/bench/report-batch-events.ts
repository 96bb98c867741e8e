import type { BenchResults } from './results';

/** From `npm run bench:batch` (systems of its own), when it ran: the event log's cost and batch upsert's throughput. */
export function batchEventsSection(results: BenchResults): string[] {
  const figures = results['batch-events'];
  if (!figures) return [];
  const [off, on] = [figures.writes.find((w) => w.log === 'off'), figures.writes.find((w) => w.log === 'on')];
  const ratio =
    off && on && off.creates_per_s > 0
      ? ` (${Math.round((on.creates_per_s / off.creates_per_s) * 100)} % of the rate without the log)`
      : '';
  const bytes = figures.bytes_per_event;
  return [
    '## Event log and batch upsert',
    '',
    `From \`npm run bench:batch\` (${figures.measured_at}, commit \`${figures.commit}\`${figures.dirty ? ' plus uncommitted changes' : ''}; 1 crm + 1 webhooks replica per system, ${figures.clients} clients). ` +
      `\`POST /v1/contacts\` for ${figures.seconds} s on a system whose event log is off (\`EVENTS_RETENTION_DAYS=0\`), then on one whose log is on${ratio}:`,
    '',
    '| event log | creates/s | p50 ms | p99 ms |',
    '|---|---|---|---|',
    ...figures.writes.map((w) => `| ${w.log} | ${w.creates_per_s} | ${w.p50_ms} | ${w.p99_ms} |`),
    '',
    `Events stored: ${figures.events_stored_per_s}/s (first write to last event stored). Size per event: ${bytes.document} bytes of document` +
      (bytes.storage !== null ? `, ${bytes.storage} bytes on disk` : '') +
      (bytes.indexes !== null ? `, ${bytes.indexes} bytes of indexes` : '') +
      ' (30 days of retention × the events/day of an organization gives its footprint).',
    '',
    `A ${figures.import.rows.toLocaleString('en')}-row import through \`POST /v1/contacts/batch/upsert\` (batches of 100): ${figures.import.seconds} s, ` +
      `**${figures.import.items_per_s} items/s** (${figures.import.errors} item errors); ${figures.single.rows.toLocaleString('en')} single \`POST /v1/contacts\` creates ` +
      `with the same clients: ${figures.single.creates_per_s} creates/s (×${Math.round((figures.import.items_per_s / Math.max(0.1, figures.single.creates_per_s)) * 10) / 10}).`,
    '',
  ];
}
