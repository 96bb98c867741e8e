import type { FastReceiver } from './receiver';
import { measureStages, type WebhookStages } from './webhook-stages';
import { DRAIN_TIMEOUT_MS, latencyOf, pacedContactWrites, subscribe, type Tenant } from './webhook-scenarios';

export interface WebhookIsolation {
  rate_per_s: number;
  seconds: number;
  /** Subscriptions of the noisy organization to an endpoint answering after `slow_ms`, and to one answering 500. */
  slow_subscriptions: number;
  slow_ms: number;
  failing_subscriptions: number;
  /** Deliveries the slow endpoints had answered by the end of the writes. */
  slow_answered: number;
  /** Write → received on the fast endpoints (the noisy organization's own and the other's) meanwhile. */
  fast: { delivered: number; lost: number; duplicates: number; p50_ms: number; p99_ms: number; max_ms: number };
  /** Where the fast endpoints' time went (their deliveries only); null when not read. */
  fast_stages: WebhookStages | null;
}

/**
 * Isolation: organization A subscribes contact.created `slow` times (3) to an endpoint that answers after `slowMs`
 * and `failing` times (3) to one that answers 500, and once to a fast one; organization B once to a fast one. Both write at
 * `rate`/2 for `seconds`. The figure is the latency of the fast endpoints' deliveries: a slow or failing endpoint
 * must not delay them. A's slow and failing subscriptions are deleted afterwards (with their backlog).
 */
export async function measureIsolation(
  baseUrl: string,
  tenants: [Tenant, Tenant],
  receiver: FastReceiver,
  options: { rate: number; seconds: number; slowMs: number; slow: number; failing: number; env?: NodeJS.ProcessEnv },
): Promise<WebhookIsolation> {
  const [noisy, quiet] = tenants;
  const noisyIds: string[] = [];
  for (let i = 1; i <= options.slow; i++) noisyIds.push(await subscribe(noisy.api, receiver.url(`iso-${i}`, 'slow')));
  for (let i = 1; i <= options.failing; i++) noisyIds.push(await subscribe(noisy.api, receiver.url(`iso-${i}`, 'fail')));
  const fastIds = [
    await subscribe(noisy.api, receiver.url('iso-noisy', 'fast')),
    await subscribe(quiet.api, receiver.url('iso-quiet', 'fast')),
  ];
  const first = receiver.arrivals.length;
  try {
    const writes = await pacedContactWrites(baseUrl, tenants, options.rate, options.seconds);
    const slowAnswered = receiver.arrivals.slice(first).filter((arrival) => arrival.path.startsWith('/slow/')).length;
    const isFast = (path: string) => path === '/fast/iso-noisy' || path === '/fast/iso-quiet';
    const fastArrived = () =>
      new Set(
        receiver.arrivals
          .slice(first)
          .filter((a) => isFast(a.path))
          .map((a) => a.objectId),
      ).size;
    await receiver.waitUntil(() => fastArrived() >= writes.sentAt.size, DRAIN_TIMEOUT_MS);
    const fast = latencyOf(receiver.arrivals.slice(first), writes.sentAt, isFast);
    const fastArrivals = receiver.arrivals.slice(first).filter((arrival) => isFast(arrival.path));
    const stages = options.env ? await measureStages(options.env, fastArrivals, writes.sentAt, fastIds) : null;
    return {
      rate_per_s: options.rate,
      seconds: options.seconds,
      slow_subscriptions: options.slow,
      slow_ms: options.slowMs,
      failing_subscriptions: options.failing,
      slow_answered: slowAnswered,
      fast: { ...fast, lost: writes.sentAt.size - fast.delivered },
      fast_stages: stages,
    };
  } finally {
    for (const id of noisyIds) await noisy.api.call('DELETE', `/v1/webhooks/${id}`);
  }
}
