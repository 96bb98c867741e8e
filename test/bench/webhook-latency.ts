/**
 * End-to-end webhook latency (API write → request received by a loopback subscriber) and delivery throughput with
 * a fast receiver, against the running system (npm start: BASE_URL / API_KEY or .local/demo-key.json). The
 * receiver's host must be allow-listed (npm start allow-lists 127.0.0.1). Prints the numbers and writes
 * bench-results/webhooks.json.
 *   npx tsx test/bench/webhook-latency.ts      (BENCH_WRITES=200, BENCH_BURST=300, BENCH_FANOUT=5)
 *   BENCH_OWN_SYSTEM=1 npx tsx test/bench/webhook-latency.ts   (starts a system of its own on the local stack)
 */
import { benchTarget, percentile, writeResults } from './bench-env';
import { startOwnSystem } from './own-system';
import { startReceiver } from '../support/webhook-receiver';

const WRITES = Number(process.env.BENCH_WRITES ?? 200);
const BURST = Number(process.env.BENCH_BURST ?? 300);
const FANOUT = Number(process.env.BENCH_FANOUT ?? 5);
const CONCURRENCY = 10;

async function main(): Promise<void> {
  const own = process.env.BENCH_OWN_SYSTEM === '1' ? await startOwnSystem() : undefined;
  const { baseUrl, key } = own ?? benchTarget();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown): Promise<any> => {
    for (;;) {
      const response = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      // The per-key rate limit, or a busy local store: wait and retry instead of counting a refusal.
      if (response.status === 429 || response.status === 503) {
        await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000));
        continue;
      }
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return response.status === 204 ? null : response.json();
    }
  };

  console.log(`measuring against ${baseUrl}`);
  const receiver = await startReceiver({ status: 204 });
  const webhookIds: string[] = [];
  try {
    const subscribe = async () => webhookIds.push(((await call('POST', '/v1/webhooks', { name: 'bench', url: receiver.url, events: ['contact.created'] })) as { data: { id: string } }).data.id);
    await subscribe();
    const arrivalOf = (contactId: string) => receiver.received.find((request) => request.event.data?.object?.id === contactId)?.receivedAt;

    // Warm-up: connections, JIT, the consumer's first fetch.
    for (let i = 0; i < 5; i++) await call('POST', '/v1/contacts', { name: `Webhook warm-up ${i}` });
    await receiver.waitFor((all) => all.length >= 5, 30_000);

    // 1. Latency: one write at a time, each waits for its delivery.
    const latencies: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      const started = performance.timeOrigin + performance.now();
      const contact = (await call('POST', '/v1/contacts', { name: `Webhook latency ${i}` })) as { data: { id: string } };
      await receiver.waitFor(() => arrivalOf(contact.data.id) !== undefined, 15_000);
      latencies.push((arrivalOf(contact.data.id) ?? NaN) - started);
      if ((i + 1) % 50 === 0) console.log(`  ${i + 1}/${WRITES} writes delivered`);
    }
    const sorted = [...latencies].sort((a, b) => a - b);

    // 2. Throughput: a burst of writes, each fanned out to FANOUT subscriptions of the same receiver.
    for (let i = 1; i < FANOUT; i++) await subscribe();
    const before = receiver.received.length;
    const burstStart = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < BURST) {
          const i = next++;
          await call('POST', '/v1/contacts', { name: `Webhook burst ${i}` });
        }
      }),
    );
    const writesDoneMs = Date.now() - burstStart;
    const expected = BURST * FANOUT;
    await receiver.waitFor((all) => all.length - before >= expected, 300_000);
    const burstMs = Math.max(...receiver.received.slice(before).map((request) => request.receivedAt)) - burstStart;

    const results = {
      latency: { writes: WRITES, p50_ms: percentile(sorted, 50), p90_ms: percentile(sorted, 90), p99_ms: percentile(sorted, 99), max_ms: percentile(sorted, 100) },
      throughput: {
        writes: BURST,
        subscriptions: FANOUT,
        deliveries: expected,
        write_concurrency: CONCURRENCY,
        writes_done_s: Math.round(writesDoneMs) / 1000,
        last_delivery_s: Math.round(burstMs) / 1000,
        deliveries_per_second: Math.round((expected / burstMs) * 1000 * 10) / 10,
      },
    };
    console.log(`webhook latency write → received over ${WRITES} writes: p50 ${results.latency.p50_ms} ms, p90 ${results.latency.p90_ms} ms, p99 ${results.latency.p99_ms} ms, max ${results.latency.max_ms} ms`);
    console.log(
      `throughput: ${BURST} writes × ${FANOUT} subscriptions = ${expected} deliveries in ${results.throughput.last_delivery_s} s → ${results.throughput.deliveries_per_second} deliveries/s (writes finished after ${results.throughput.writes_done_s} s)`,
    );
    console.log(`written to ${writeResults('webhooks', results)}`);
  } finally {
    for (const id of webhookIds) await call('DELETE', `/v1/webhooks/${id}`).catch(() => undefined);
    await receiver.close();
    await own?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
