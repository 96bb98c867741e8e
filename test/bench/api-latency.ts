/**
 * Latency of the main read and write routes through the running gateway (npm start), measured over loopback
 * with bounded request counts. Prints a table and writes bench-results/api-latency.json.
 *   npm run bench            (defaults: 400 requests per scenario, concurrency 1 and 8)
 */
import { benchTarget, summarize, writeResults } from './bench-env';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const SEED_CONTACTS = Number(process.env.BENCH_SEED ?? 300);

type Scenario = { name: string; request: (i: number) => Promise<Response> };

async function main(): Promise<void> {
  const { baseUrl, key } = benchTarget();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const call = (method: string, path: string, body?: unknown) => fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });

  const existing = (await (await call('GET', '/v1/contacts?limit=1')).json()) as { meta: { total: number } };
  for (let i = existing.meta.total; i < SEED_CONTACTS; i += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, j) => call('POST', '/v1/contacts', { name: `Bench contact ${i + j}`, tags: [`bench-${(i + j) % 7}`] })));
  }
  const contactId = ((await (await call('GET', '/v1/contacts?limit=1')).json()) as { data: Array<{ id: string }> }).data[0]?.id ?? '';

  const scenarios: Scenario[] = [
    { name: 'GET /v1/contacts', request: () => call('GET', '/v1/contacts') },
    { name: 'GET /v1/contacts?search&tag', request: (i) => call('GET', `/v1/contacts?search=contact&tag=bench-${i % 7}`) },
    { name: 'GET /v1/contacts/{id}', request: () => call('GET', `/v1/contacts/${contactId}`) },
    { name: 'PATCH /v1/contacts/{id}', request: (i) => call('PATCH', `/v1/contacts/${contactId}`, { tags: [`bench-${i % 7}`] }) },
  ];
  const deal = await dealScenarios(call);
  scenarios.push(...deal);

  const results: Record<string, unknown> = {};
  for (const scenario of scenarios) {
    for (const concurrency of [1, 8]) {
      for (let i = 0; i < 20; i++) await (await scenario.request(i)).arrayBuffer(); // warm-up
      const samples: number[] = [];
      let failures = 0;
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < REQUESTS) {
            const i = next++;
            const t0 = performance.now();
            const response = await scenario.request(i);
            await response.arrayBuffer();
            samples.push(performance.now() - t0);
            if (!response.ok) failures++;
          }
        }),
      );
      const summary = { ...summarize(samples, performance.now() - started), failures };
      results[`${scenario.name} (concurrency ${concurrency})`] = summary;
      console.log(`${scenario.name.padEnd(34)} c=${concurrency}  p50 ${summary.p50_ms} ms  p99 ${summary.p99_ms} ms  ${summary.rps} req/s  failures ${failures}`);
    }
  }
  console.log(`written to ${writeResults('api-latency', results)}`);
}

/** Deal scenarios when the deal routes exist (they need a funnel; the demo organization has one). */
async function dealScenarios(call: (method: string, path: string, body?: unknown) => Promise<Response>): Promise<Scenario[]> {
  const list = await call('GET', '/v1/deals?limit=1');
  if (list.status === 404) return [];
  const existing = (await list.json()) as { meta: { total: number } };
  for (let i = existing.meta.total; i < 200; i += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, j) => call('POST', '/v1/deals', { title: `Bench deal ${i + j}`, value: (i + j) * 10 })));
  }
  const dealId = ((await (await call('GET', '/v1/deals?limit=1')).json()) as { data: Array<{ id: string }> }).data[0]?.id ?? '';
  return [
    { name: 'GET /v1/deals', request: () => call('GET', '/v1/deals') },
    { name: 'PATCH /v1/deals/{id}', request: (i) => call('PATCH', `/v1/deals/${dealId}`, { value: i, probability: i % 100 }) },
  ];
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
