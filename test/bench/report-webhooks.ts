import type { BenchResults } from './results';
import { mark, TARGETS, type Verdict } from './targets';

type Row = [string, string | number | null, string, string];

const row = (what: string, figure: string | number | null, verdict?: Verdict): Row => [what, figure, verdict?.target ?? '—', mark(verdict)];

/**
 * Whether bench-results/webhooks.json has the shape this report reads: a file from an older bench (one latency run,
 * no measurement header) is reported as such instead of being misread.
 */
export function isCurrentShape(webhooks: unknown): webhooks is BenchResults['webhooks'] {
  const figures = webhooks as Partial<BenchResults['webhooks']> | null;
  return !!figures && Array.isArray(figures.latency) && typeof figures.measured_at === 'string';
}

/** The line above the webhook table: when, at which commit and under which machine load the figures were taken. */
export function webhookHeader({ webhooks }: BenchResults): string {
  if (!isCurrentShape(webhooks))
    return '`bench-results/webhooks.json` was written by an older benchmark and is not shown: run `npm run bench:webhooks` (or `npm run bench`).';
  const [before, after] = webhooks.load_avg;
  return `From \`npm run bench:webhooks\` or \`npm run bench\` (a system of its own: ${webhooks.measured_at}, commit \`${webhooks.commit}\`${webhooks.dirty ? ' plus uncommitted changes' : ''}); the machine's 1-minute load average ${before} → ${after} on 2 cores — a loaded machine stretches every latency, so compare the project with the peer of the same run.`;
}

/** The webhook section of BENCHMARKS.md: each figure with its issue-20 target; a scenario that did not run has no row. */
export function webhookRows({ webhooks }: BenchResults): Row[] {
  if (!isCurrentShape(webhooks)) return [];
  return [...throughputRows(webhooks), ...latencyRows(webhooks), ...isolationRows(webhooks), ...broadcastRows(webhooks)];
}

/** Where the time of one event went at each measured rate (webhook-stages.ts): p50 / p99 ms per stage. */
export function stageRows({ webhooks }: BenchResults): Array<Array<string | number>> {
  if (!isCurrentShape(webhooks)) return [];
  return webhooks.latency.flatMap((run) => {
    if (!run.stages) return [];
    const { stages } = run;
    const cell = (stage: { p50_ms: number; p99_ms: number }) => `${stage.p50_ms} / ${stage.p99_ms}`;
    const cpu = Object.entries(run.cpu?.cpu_percent ?? {})
      .map(([name, value]) => `${name} ${value} %`)
      .join(', ');
    return [
      [
        `${run.rate_per_s}/s (${stages.events} events)`,
        cell(stages.write),
        cell(stages.relay),
        cell(stages.consume),
        cell(stages.dispatch),
        cell(stages.http),
        `${run.p50_ms} / ${run.p99_ms}`,
        `${cpu}; load ${run.cpu?.load_avg ?? '?'}`,
      ],
    ];
  });
}

function throughputRows({ throughput, backlog, peer }: BenchResults['webhooks']): Row[] {
  if (!throughput) return [];
  const burst = `${throughput.contacts_created} contacts created at ${throughput.write_rate_per_s}/s in ${throughput.write_seconds} s × ${throughput.subscriptions} subscriptions: ${throughput.offered_per_s} deliveries/s offered`;
  return [
    row(
      `deliveries/s to a fast receiver (${burst}; first write → last delivery ${throughput.seconds_to_last} s)`,
      throughput.deliveries_per_s,
      TARGETS.deliveries(throughput.deliveries_per_s),
    ),
    ...(backlog
      ? [
          row(
            `the same load while the webhooks replicas were stopped (SIGSTOP), drained once resumed: ${backlog.delivered} / ${backlog.expected} deliveries (${backlog.duplicates} duplicates) received in ${backlog.seconds} s, deliveries/s`,
            backlog.deliveries_per_s,
          ),
          row(
            `the same backlog with every outcome stored (no delivery pending) ${backlog.recorded_seconds} s after the resume, deliveries/s`,
            backlog.recorded_per_s,
          ),
        ]
      : []),
    row(
      `the one-process peer over the same ${peer?.delivered ?? 0} deliveries (read from the database, POST with keep-alive, outcomes stored): deliveries/s; the target applies to the project's backlog with its outcomes stored${backlog ? '' : ' (not measured: the paced figure above is compared instead)'}`,
      peer ? Math.round(peer.per_s) : null,
      TARGETS.deliveriesVsPeer(backlog?.recorded_per_s ?? throughput.deliveries_per_s, peer?.per_s ?? NaN),
    ),
    row(
      'best whole second of the project run; delivered / expected, duplicates',
      `${throughput.peak_deliveries_per_s}; ${throughput.delivered} / ${throughput.expected}, ${throughput.duplicates}`,
    ),
  ];
}

function latencyRows({ latency }: BenchResults['webhooks']): Row[] {
  return latency.flatMap((run) => [
    row(
      `write → received p50 at ${run.rate_per_s} events/s for ${run.seconds} s, ${run.organizations} organizations, ${writesOf(run.per_write ?? 1)} (writes p99 ${run.write_p99_ms} ms)`,
      run.p50_ms,
    ),
    row(
      `write → received p99 (max ${run.max_ms}; ${run.delivered} delivered, ${run.lost} lost, ${run.duplicates} duplicates, ${run.write_failures} failed writes${failureCauses(run.write_failure_causes)})`,
      run.p99_ms,
      TARGETS.webhookP99(run.rate_per_s, run.p99_ms, run.lost),
    ),
  ]);
}

const writesOf = (perWrite: number): string =>
  perWrite === 1 ? 'one POST /v1/contacts per event' : `batch upserts of ${perWrite} contacts (timed from the batch's request)`;

const failureCauses = (causes: Record<string, number> | undefined): string => {
  const list = Object.entries(causes ?? {}).map(([cause, count]) => `${cause}: ${count}`);
  return list.length > 0 ? ` — ${list.join(', ')}` : '';
};

function isolationRows({ isolation }: BenchResults['webhooks']): Row[] {
  if (!isolation) return [];
  const { fast } = isolation;
  const built = isolation.fast_stages?.after_write;
  const pipeline = built ? `; event built → received p50 ${built.p50_ms} / p99 ${built.p99_ms}` : '';
  return [
    row(
      `isolation: p99 of the fast endpoints at ${isolation.rate_per_s} events/s while ${isolation.slow_subscriptions} subscriptions answer after ${isolation.slow_ms} ms and ${isolation.failing_subscriptions} answer 500 (p50 ${fast.p50_ms}, max ${fast.max_ms}; ${fast.lost} lost, ${fast.duplicates} duplicates; the slow ones answered ${isolation.slow_answered} meanwhile${pipeline})`,
      fast.p99_ms,
      TARGETS.isolation(fast.p99_ms, fast.lost),
    ),
  ];
}

function broadcastRows({ broadcasts }: BenchResults['webhooks']): Row[] {
  if (!broadcasts) return [];
  return [
    row(
      `broadcasts: ${broadcasts.broadcasts} × ${broadcasts.recipients_each} recipients at once (${broadcasts.sends_per_s} sends/s), ${broadcasts.events} / ${broadcasts.expected} status events received (${broadcasts.duplicates} duplicates), status → received p50 ${broadcasts.p50_ms} / p99 ${broadcasts.p99_ms} / max ${broadcasts.max_ms} ms; ms from the last status to its delivery`,
      broadcasts.last_after_last_ms,
      TARGETS.broadcastCatchUp(broadcasts.last_after_last_ms, broadcasts.events, broadcasts.expected),
    ),
  ];
}
