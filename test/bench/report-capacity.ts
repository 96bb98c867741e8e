import type { WaitProfile } from './capacity-profile';
import type { BenchResults } from './results';

const ok = (pass: boolean): string => (pass ? '✓' : '✗');

/** From `npm run bench:capacity` (its own system), when it ran: the targets of issue 22 beside each figure. */
export function capacitySection({ capacity: figures }: BenchResults): string[] {
  if (!figures) return [];
  const { heavy, light } = figures.overload;
  const statuses = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
  const lightP99 = light.p99_ms;
  const ratio = figures.goodput_ratio;
  return [
    '## One organization saturating, another served',
    '',
    `From \`npm run bench:capacity\` (a system of its own, ${figures.measured_at}; bulkheads \`TENANT_CONCURRENCY=${figures.tenant_concurrency}\`, CRM places per organization \`CRM_CALL_CONCURRENCY_PER_ORG=${figures.crm_calls_per_org ?? 'default'}\`): one organization of ${figures.heavy_contacts.toLocaleString('en')} contacts calls \`GET ${figures.heavy_path}\` alone from ${figures.capacity.clients} clients (capacity), then from ${heavy.clients} clients that never back off (${figures.heavy_connections_open_first ? 'connected before the overload begins, then all sending at once' : 'their connections opened in its first instant'}) while another organization calls \`GET ${figures.light_path}\` at ${light.rate}/s.`,
    '',
    '| what | figure | target |  |',
    '|---|---|---|---|',
    `| capacity: heavy list alone, 2xx/s | ${figures.capacity.goodput} | — |  |`,
    `| overload: heavy 2xx/s (answers by status) | ${heavy.goodput} (${statuses(heavy.statuses)}) | — |  |`,
    `| overload: other organization p50 / p99 ms | ${light.p50_ms ?? '—'} / ${lightP99 ?? '—'} | p99 ≤ 100 ms | ${ok(lightP99 !== null && lightP99 <= 100)} |`,
    `| overload: other organization 5xx (answers by status) | ${light.fivexx} (${statuses(light.statuses)}) | no 5xx | ${ok(light.fivexx === 0 && light.errors === 0)} |`,
    `| overload: goodput (both) / capacity | ${ratio ?? '—'} | ≥ 0.8 | ${ok(ratio !== null && ratio >= 0.8)} |`,
    '',
    ...(figures.load_average === undefined ? [] : [`Load average (1 min, 2 cores) when the overload began: ${figures.load_average}.`, '']),
    ...(light.send_lag_p99_ms == null
      ? []
      : [
          `The load generator sent the other organization's requests late by up to ${light.send_lag_p99_ms} ms (p99 after each was due): that much of its latency is the generator's own wait for a core, not the system's.`,
          '',
        ]),
    ...(light.p99_after_first_second_ms == null
      ? []
      : [`Past the overload's first second: other organization p99 ${light.p99_after_first_second_ms} ms.`, '']),
    ...(light.slowest?.length
      ? [
          `The other organization's slowest answers, latency in ms (when each was due, s after the overload began): ${light.slowest
            .map(({ due_ms, latency_ms }) => `${latency_ms} (${(due_ms / 1000).toFixed(2)})`)
            .join(', ')}.`,
          '',
        ]
      : []),
    ...(figures.overload_cpu === undefined
      ? []
      : [
          `CPU over the overload, % of one core: ${Object.entries(figures.overload_cpu)
            .map(([name, percent]) => `${name.replace('_', ' ')} ${percent}`)
            .join(', ')}.`,
          '',
        ]),
    `${
      figures.light_paced
        ? `The other organization's requests are sent open loop at an even pace on up to ${light.clients} connections, each timed from when it was due (a slow answer shows in every request it delays).`
        : `The other organization's ${light.clients} clients each wait for their answer, so its number of answers falls as its latency grows.`
    } Runs side by side and what the profile says: [docs/capacity.md](docs/capacity.md) ("Measured").`,
    '',
    ...waitSection(figures.light_wait_profile),
    ...waitSection(figures.light_wait_profile_first_second, "of them, those begun in the overload's first second"),
  ];
}

/** With CAPACITY_PROFILE=1 (spans on, which costs CPU): where the other organization's requests waited. */
function waitSection(profile: WaitProfile | undefined, which = 'answered requests'): string[] {
  if (!profile) return [];
  return [
    `Traced run (\`CAPACITY_PROFILE=1\`): where the other organization's ${profile.requests} ${which} spent their time, ms.`,
    '',
    '| segment | p50 | p99 |',
    '|---|---|---|',
    ...Object.entries(profile.segments).map(([name, figure]) => `| ${name} | ${figure.p50_ms ?? '—'} | ${figure.p99_ms ?? '—'} |`),
    '',
  ];
}
