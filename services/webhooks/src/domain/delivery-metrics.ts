import { instruments, secondsHistogram } from '@crm/shared';
import type { DeliveryStatus } from '../repository/delivery.repository';

const webhooks = instruments((meter) => ({
  deliveries: meter.createCounter('crm_webhook_deliveries_total', {
    description:
      'Delivery attempts by outcome (succeeded, retrying: failed with a retry scheduled, failed: no retry left, held: the subscription is paused) and trigger (event, redeliver, test).',
  }),
  duration: secondsHistogram(
    meter,
    'crm_webhook_attempt_duration_seconds',
    "Time from sending a webhook to the receiver's answer (or the timeout), by outcome.",
  ),
  paused: meter.createCounter('crm_webhook_subscriptions_paused_total', {
    description: 'Subscriptions paused by the delivery worker, by reason (gone: the receiver answered 410; failures: too many in a row).',
  }),
}));

export type DeliveryTrigger = 'event' | 'redeliver' | 'test';

const OUTCOME: Record<DeliveryStatus, string> = { succeeded: 'succeeded', pending: 'retrying', failed: 'failed' };

export function countAttempt(status: DeliveryStatus, durationMs: number, trigger: DeliveryTrigger): void {
  const outcome = OUTCOME[status];
  webhooks().deliveries.add(1, { outcome, trigger });
  webhooks().duration.record(durationMs / 1000, { outcome });
}

/** Due attempts of a paused subscription, held until it is reactivated. */
export function countHeld(deliveries = 1): void {
  webhooks().deliveries.add(deliveries, { outcome: 'held', trigger: 'event' });
}

export function countPaused(reason: 'gone' | 'failures'): void {
  webhooks().paused.add(1, { reason });
}
