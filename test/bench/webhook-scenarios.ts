import type { ApiClient } from './api-client';
import { runLoad } from './load';
import type { FastReceiver } from './receiver';
import { percentile, round, sleep } from './stats';

export interface WebhookLatency {
  rate_per_s: number;
  seconds: number;
  writes: number;
  /** Writes whose POST failed: they cause no event. */
  write_failures: number;
  delivered: number;
  lost: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface WebhookThroughput {
  subscriptions: number;
  write_clients: number;
  write_seconds: number;
  contacts_created: number;
  expected: number;
  delivered: number;
  duplicates: number;
  /** From the first write to the last delivery: the whole pipeline, relay and consumer lag included. */
  seconds_to_last: number;
  deliveries_per_s: number;
  /** The best whole second seen by the receiver. */
  peak_deliveries_per_s: number;
}

const DRAIN_TIMEOUT_MS = 120_000;

/** Subscribes subscription number `n` of the receiver to contact.created through the public API. */
export async function subscribe(api: ApiClient, receiver: FastReceiver, n: number): Promise<string> {
  const created = await api.call<{ data: { id: string } }>('POST', '/v1/webhooks', {
    name: `bench ${n}`,
    url: receiver.url(n),
    events: ['contact.created'],
  });
  return created.data.id;
}

/** Creates a few contacts and waits for their deliveries: subscriptions active, connections and consumers warm. */
export async function warmWebhooks(api: ApiClient, receiver: FastReceiver, subscriptions: number): Promise<void> {
  const before = receiver.arrivals.length;
  for (let i = 0; i < 5; i++) await api.call('POST', '/v1/contacts', { name: `Webhook warm-up ${i}` });
  const ok = await receiver.waitUntil(() => receiver.arrivals.length - before >= 5 * subscriptions, 60_000);
  if (!ok) throw new Error(`webhook warm-up: ${receiver.arrivals.length - before} of ${5 * subscriptions} deliveries within 60 s`);
  await sleep(500);
}

/**
 * Write → received latency at a steady rate: one POST /v1/contacts every 1/rate s, open loop (a slow answer does
 * not delay the next write). Timestamped when the POST is sent and when the receiver has the delivery's body.
 */
export async function measureWebhookLatency(
  baseUrl: string,
  api: ApiClient,
  receiver: FastReceiver,
  rate: number,
  seconds: number,
): Promise<WebhookLatency> {
  const sentAt = new Map<string, number>();
  let failures = 0;
  const writes: Promise<void>[] = [];
  const total = rate * seconds;
  const start = Date.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    const t0 = Date.now();
    writes.push(
      fetch(`${baseUrl}/v1/contacts`, {
        method: 'POST',
        headers: api.headers,
        body: JSON.stringify({ name: `Webhook latency ${i}` }),
      }).then(
        async (response) => {
          if (!response.ok) {
            failures++;
            return;
          }
          sentAt.set(((await response.json()) as { data: { id: string } }).data.id, t0);
        },
        () => void failures++,
      ),
    );
  }
  await Promise.all(writes);
  const arrivedAt = new Map<string, number>();
  const collect = () => {
    for (const arrival of receiver.arrivals)
      if (sentAt.has(arrival.objectId) && !arrivedAt.has(arrival.objectId)) arrivedAt.set(arrival.objectId, arrival.at);
    return arrivedAt.size >= sentAt.size;
  };
  await receiver.waitUntil(collect, DRAIN_TIMEOUT_MS);
  const latencies = [...arrivedAt].map(([id, at]) => at - (sentAt.get(id) ?? at)).sort((a, b) => a - b);
  return {
    rate_per_s: rate,
    seconds,
    writes: total,
    write_failures: failures,
    delivered: latencies.length,
    lost: sentAt.size - latencies.length,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    max_ms: percentile(latencies, 100),
  };
}

/**
 * Delivery throughput: `clients` connections create contacts as fast as the gateway answers for `seconds`, each
 * contact fanned out to every subscription; then waits until every expected delivery arrived (or two minutes).
 */
export async function measureWebhookThroughput(
  baseUrl: string,
  api: ApiClient,
  receiver: FastReceiver,
  subscriptions: number,
  clients: number,
  seconds: number,
): Promise<WebhookThroughput> {
  const first = receiver.arrivals.length;
  const start = Date.now();
  const load = await runLoad({
    baseUrl,
    clients,
    seconds,
    request: { method: 'POST', path: '/v1/contacts', headers: api.headers, body: JSON.stringify({ name: 'Webhook burst' }) },
  });
  const created = load.ok;
  const expected = created * subscriptions;
  await receiver.waitUntil(() => receiver.arrivals.length - first >= expected, DRAIN_TIMEOUT_MS);
  const burst = receiver.arrivals.slice(first);
  const unique = new Set(burst.map((arrival) => `${arrival.path} ${arrival.eventId}`));
  let last = start;
  const perSecond = new Map<number, number>();
  for (const arrival of burst) {
    last = Math.max(last, arrival.at);
    const second = Math.floor((arrival.at - start) / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  return {
    subscriptions,
    write_clients: clients,
    write_seconds: load.seconds,
    contacts_created: created,
    expected,
    delivered: unique.size,
    duplicates: burst.length - unique.size,
    seconds_to_last: round((last - start) / 1000, 2),
    deliveries_per_s: round(unique.size / Math.max(0.001, (last - start) / 1000)),
    peak_deliveries_per_s: Math.max(0, ...perSecond.values()),
  };
}
