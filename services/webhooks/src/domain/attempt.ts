import { sendWebhook } from '../delivery/http-sender';
import { signPayload } from '../delivery/signing';
import type { DeliveryRecord } from '../repository/delivery.repository';
import type { WebhookRecord } from '../repository/webhook.repository';
import { planAttemptOutcome } from './attempt-outcome';
import type { AttemptResult } from './attempt-result';
import type { DeliveryTrigger } from './delivery-metrics';
import type { WebhookDeps } from './deps';
import { signingSecrets } from './webhook.view';

/**
 * Makes one attempt of a delivery this replica has leased: signs the stored raw body with a fresh timestamp, POSTs
 * it, and plans what follows (done, the next attempt on the schedule, or failed). Recording it is the
 * AttemptRecorder's job, so that attempts are stored in batches.
 */
export async function sendAttempt(
  deps: WebhookDeps,
  delivery: DeliveryRecord,
  webhook: WebhookRecord,
  trigger: DeliveryTrigger,
): Promise<AttemptResult> {
  const startedAt = deps.now();
  const headers = signPayload({
    eventId: delivery.event_id,
    body: delivery.request_body,
    timestampSeconds: Math.floor(startedAt.getTime() / 1000),
    secrets: signingSecrets(webhook, startedAt),
  });
  const result = await sendWebhook({
    url: webhook.url,
    body: delivery.request_body,
    headers,
    // Test sends and redeliveries hold a gateway request: they wait less (WEBHOOK_MANUAL_TIMEOUT_MS).
    timeoutMs: trigger === 'event' ? deps.settings.timeoutMs : deps.settings.manualTimeoutMs,
    allowList: deps.settings.allowList,
  });
  const at = deps.now();
  const outcome = planAttemptOutcome({
    attempt: delivery.attempt + 1,
    result,
    startedAt,
    scheduleMs: deps.settings.scheduleMs,
    retries: !delivery.is_test,
    now: at,
  });
  return { delivery, webhook, trigger, headers, result, outcome, at };
}

/**
 * Test sends and redeliveries: one attempt within the call, even while the subscription is paused, stored before
 * the answer. Returns the delivery as stored.
 */
export async function attemptNow(deps: WebhookDeps, delivery: DeliveryRecord, trigger: 'test' | 'redeliver'): Promise<DeliveryRecord> {
  const webhook = await deps.webhooks.getById(delivery.org_id, delivery.webhook_id);
  if (!webhook) return delivery;
  await deps.recorder.record(await sendAttempt(deps, delivery, webhook, trigger));
  return (await deps.deliveries.getById(delivery.org_id, delivery.id)) ?? delivery;
}
