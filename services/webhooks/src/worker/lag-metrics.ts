import type { ObservableResult } from '@opentelemetry/api';
import { cachedObservation, instruments } from '@crm/shared';
import type { DeliveryRepository } from '../repository/delivery.repository';

/** Subscriptions reported per scrape, the most behind first: the series stay bounded however many fall behind. */
const MAX_REPORTED = 200;

const lag = instruments((meter) => ({
  lag: meter.createObservableGauge('crm_webhook_subscription_lag_seconds', {
    description:
      'Per subscription with undelivered events (at most the 200 most behind): age of its oldest undelivered delivery. Every replica reports the same values: aggregate with max.',
    unit: 's',
  }),
  backlog: meter.createObservableGauge('crm_webhook_subscription_backlog', {
    description: 'Per subscription with undelivered events (the same ones): how many are undelivered (first attempt, retrying or held).',
  }),
}));

/**
 * Reports each subscription's lag and backlog from the database when scraped (at most every 5 s): one aggregate
 * over the pending deliveries, which the status index finds. A subscription that caught up drops out of the
 * series. Returns the function that stops it.
 */
export function observeSubscriptionLag(deliveries: DeliveryRepository, now: () => Date): () => void {
  const read = cachedObservation(async () => {
    const at = now().getTime();
    return [...(await deliveries.backlogs())]
      .map(([webhookId, backlog]) => ({
        webhookId,
        pending: backlog.pending,
        seconds: Math.max(0, (at - backlog.oldest.getTime()) / 1000),
      }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, MAX_REPORTED);
  }, 5_000);
  const reportLag = async (result: ObservableResult) => {
    for (const entry of (await read()) ?? []) result.observe(entry.seconds, { webhook_id: entry.webhookId });
  };
  const reportBacklog = async (result: ObservableResult) => {
    for (const entry of (await read()) ?? []) result.observe(entry.pending, { webhook_id: entry.webhookId });
  };
  lag().lag.addCallback(reportLag);
  lag().backlog.addCallback(reportBacklog);
  return () => {
    lag().lag.removeCallback(reportLag);
    lag().backlog.removeCallback(reportBacklog);
  };
}
