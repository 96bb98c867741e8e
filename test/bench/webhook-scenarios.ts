import { randomUUID } from 'node:crypto';
import type { ApiClient } from './api-client';
import type { Arrival, FastReceiver } from './receiver';
import { percentile, round, sleep } from './stats';
import { measureStages, type WebhookStages } from './webhook-stages';

/** One organization taking part in a scenario: its API client and the base URL of the gateway. */
export interface Tenant {
  name: string;
  api: ApiClient;
}

export interface WebhookLatency {
  rate_per_s: number;
  /** Contacts per write request: 1 (POST /v1/contacts) or a batch upsert of that many. */
  per_write: number;
  seconds: number;
  organizations: number;
  writes: number;
  /** Writes whose POST failed: they cause no event. */
  write_failures: number;
  /** The failures by HTTP status or by the client's error code (e.g. UND_ERR_SOCKET): refused by the system, or no answer. */
  write_failure_causes: Record<string, number>;
  /** p99 of the POSTs themselves: whether the write path kept the pace. */
  write_p99_ms: number;
  delivered: number;
  lost: number;
  duplicates: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Where the time went, stage by stage (webhook-stages.ts); null when not read. */
  stages: WebhookStages | null;
}

export interface WebhookThroughput {
  subscriptions: number;
  write_rate_per_s: number;
  write_seconds: number;
  contacts_created: number;
  write_failures: number;
  expected: number;
  delivered: number;
  duplicates: number;
  /** Deliveries per second the writes asked for (created × subscriptions ÷ write time). */
  offered_per_s: number;
  /** From the first write to the last delivery: the whole pipeline, relay and consumer lag included. */
  seconds_to_last: number;
  deliveries_per_s: number;
  /** The best whole second seen by the receiver. */
  peak_deliveries_per_s: number;
}

export const DRAIN_TIMEOUT_MS = 120_000;

/** Subscribes to `events` through the public API, delivering to `url`. */
export async function subscribe(api: ApiClient, url: string, events: string[] = ['contact.created']): Promise<string> {
  const created = await api.call<{ data: { id: string } }>('POST', '/v1/webhooks', { name: `bench ${url}`, url, events });
  return created.data.id;
}

/** Creates a few contacts per tenant and waits for `expected` deliveries: subscriptions active, connections and consumers warm. */
export async function warmWebhooks(tenants: Tenant[], receiver: FastReceiver, expected: number): Promise<void> {
  const before = receiver.arrivals.length;
  for (let i = 0; i < 5; i++) for (const tenant of tenants) await tenant.api.call('POST', '/v1/contacts', { name: `Webhook warm-up ${i}` });
  const ok = await receiver.waitUntil(() => receiver.arrivals.length - before >= expected, 60_000);
  if (!ok) throw new Error(`webhook warm-up: ${receiver.arrivals.length - before} of ${expected} deliveries within 60 s`);
  await sleep(500);
}

/** Deliveries received more than once on the same path (at-least-once retries, counted, never hidden). */
export const duplicatesOf = (arrivals: Arrival[]): number => arrivals.length - new Set(arrivals.map((a) => `${a.path} ${a.eventId}`)).size;

/**
 * Paced writes of `rate` contacts/s, open loop (a slow answer does not delay the next write), spread over the
 * tenants in turn: one POST /v1/contacts per contact, or with `perWrite` > 1 one POST /v1/contacts/batch/upsert of
 * that many new contacts every perWrite/rate s (the event rate a single-create client cannot offer on 2 cores).
 * Returns when each contact's write was sent, by the created contact's id.
 */
export async function pacedContactWrites(baseUrl: string, tenants: Tenant[], rate: number, seconds: number, perWrite = 1) {
  const sentAt = new Map<string, { at: number; tenant: string }>();
  const answerMs: number[] = [];
  let failures = 0;
  const causes: Record<string, number> = {};
  const failed = (cause: string) => {
    failures++;
    causes[cause] = (causes[cause] ?? 0) + 1;
  };
  const writes: Promise<void>[] = [];
  const requests = Math.round((rate * seconds) / perWrite);
  const run = randomUUID().slice(0, 8);
  const start = Date.now();
  for (let i = 0; i < requests; i++) {
    const due = start + (i * 1000 * perWrite) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    const tenant = tenants[i % tenants.length] as Tenant;
    const t0 = Date.now();
    const write =
      perWrite === 1
        ? fetch(`${baseUrl}/v1/contacts`, { method: 'POST', headers: tenant.api.headers, body: JSON.stringify({ name: `Paced ${i}` }) })
        : fetch(`${baseUrl}/v1/contacts/batch/upsert`, {
            method: 'POST',
            headers: tenant.api.headers,
            body: JSON.stringify({
              items: Array.from({ length: perWrite }, (_, n) => ({ external_id: `paced-${run}-${i}-${n}`, name: `Paced ${i}.${n}` })),
            }),
          });
    writes.push(
      write.then(
        async (response) => {
          answerMs.push(Date.now() - t0);
          if (!response.ok) return failed(String(response.status));
          const body = (await response.json()) as { data: { id: string } | Array<{ id: string | null; status: string }> };
          for (const item of Array.isArray(body.data) ? body.data : [body.data]) {
            if ('status' in item && item.status !== 'created') failed(`item ${item.status}`);
            else if (item.id) sentAt.set(item.id, { at: t0, tenant: tenant.name });
          }
        },
        (error: { cause?: { code?: string } }) => failed(error.cause?.code ?? 'no answer'),
      ),
    );
  }
  await Promise.all(writes);
  return {
    sentAt,
    failures,
    causes,
    total: requests * perWrite,
    writeP99: percentile(
      answerMs.sort((a, b) => a - b),
      99,
    ),
  };
}

/** Write → received latency of the deliveries on `paths` of the writes in `sentAt` (first arrival of each). */
export function latencyOf(arrivals: Arrival[], sentAt: Map<string, { at: number }>, paths: (path: string) => boolean) {
  const firstArrival = new Map<string, number>();
  const relevant = arrivals.filter((arrival) => paths(arrival.path) && sentAt.has(arrival.objectId));
  for (const arrival of relevant) if (!firstArrival.has(arrival.objectId)) firstArrival.set(arrival.objectId, arrival.at);
  const latencies = [...firstArrival].map(([id, at]) => at - (sentAt.get(id)?.at ?? at)).sort((a, b) => a - b);
  return {
    delivered: latencies.length,
    duplicates: duplicatesOf(relevant),
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    max_ms: percentile(latencies, 100),
  };
}

/**
 * Write → received latency at a steady rate, the writes spread over the tenants, each subscribed once to the fast
 * receiver: p50, p99, max, lost and duplicated deliveries, and (given the system's environment) the time of each
 * stage of the pipeline.
 */
export async function measureWebhookLatency(
  baseUrl: string,
  tenants: Tenant[],
  receiver: FastReceiver,
  load: { rate: number; seconds: number; perWrite?: number; env?: NodeJS.ProcessEnv },
): Promise<WebhookLatency> {
  const { rate, seconds, perWrite = 1 } = load;
  const first = receiver.arrivals.length;
  const writes = await pacedContactWrites(baseUrl, tenants, rate, seconds, perWrite);
  const delivered = () =>
    new Set(receiver.arrivals.slice(first).flatMap((arrival) => (writes.sentAt.has(arrival.objectId) ? [arrival.objectId] : []))).size;
  await receiver.waitUntil(() => delivered() >= writes.sentAt.size, DRAIN_TIMEOUT_MS);
  const figures = latencyOf(receiver.arrivals.slice(first), writes.sentAt, () => true);
  const stages = load.env ? await measureStages(load.env, receiver.arrivals.slice(first), writes.sentAt) : null;
  return {
    rate_per_s: rate,
    per_write: perWrite,
    seconds,
    organizations: tenants.length,
    writes: writes.total,
    write_failures: writes.failures,
    write_failure_causes: writes.causes,
    write_p99_ms: writes.writeP99,
    ...figures,
    lost: writes.sentAt.size - figures.delivered,
    stages,
  };
}

/**
 * Delivery throughput: contacts created at a steady `rate` for `seconds` (paced, so that the write path is not what
 * saturates the machine), each fanned out to `subscriptions` subscriptions of the fast receiver: the deliveries
 * offered per second are rate × subscriptions. Waits until every expected delivery arrived (or two minutes).
 */
export async function measureWebhookThroughput(
  baseUrl: string,
  tenant: Tenant,
  receiver: FastReceiver,
  load: { subscriptions: number; paths: (path: string) => boolean; rate: number; seconds: number },
): Promise<WebhookThroughput> {
  const { subscriptions, paths } = load;
  const first = receiver.arrivals.length;
  const start = Date.now();
  const writes = await pacedContactWrites(baseUrl, [tenant], load.rate, load.seconds);
  const writeSeconds = (Date.now() - start) / 1000;
  const expected = writes.sentAt.size * subscriptions;
  // The burst's deliveries: to its subscriptions, of the contacts it created (not a late warm-up's).
  const burstArrivals = () =>
    receiver.arrivals.slice(first).filter((arrival) => paths(arrival.path) && writes.sentAt.has(arrival.objectId));
  await receiver.waitUntil(() => new Set(burstArrivals().map((a) => `${a.path} ${a.eventId}`)).size >= expected, DRAIN_TIMEOUT_MS);
  const burst = burstArrivals();
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
    write_rate_per_s: load.rate,
    write_seconds: round(writeSeconds, 2),
    contacts_created: writes.sentAt.size,
    write_failures: writes.failures,
    expected,
    delivered: unique.size,
    duplicates: burst.length - unique.size,
    offered_per_s: round(expected / Math.max(0.001, writeSeconds)),
    seconds_to_last: round((last - start) / 1000, 2),
    deliveries_per_s: round(unique.size / Math.max(0.001, (last - start) / 1000)),
    peak_deliveries_per_s: Math.max(0, ...perSecond.values()),
  };
}
