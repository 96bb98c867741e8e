import { sendWebhook } from '../delivery/http-sender';
import { signPayload } from '../delivery/signing';
import type { DeliveryRecord } from '../repository/delivery.repository';
import type { WebhookRecord } from '../repository/webhook.repository';
import { planAttemptOutcome, type AttemptOutcome } from './attempt-outcome';
import { countAttempt, countHeld, countPaused } from './delivery-metrics';
import type { WebhookDeps } from './deps';
import { signingSecrets } from './webhook.view';

/**
 * Makes one attempt of a delivery this replica has leased: signs the stored raw body with a fresh timestamp, POSTs
 * it, records the attempt and schedules the next one, then updates the subscription's health. `inline` attempts
 * (test, redeliver) are made even while the subscription is paused; the worker's are held instead.
 */
export async function attemptDelivery(
  deps: WebhookDeps,
  delivery: DeliveryRecord,
  options: { inline?: boolean } = {},
): Promise<DeliveryRecord> {
  const webhook = await deps.webhooks.getById(delivery.org_id, delivery.webhook_id);
  if (!webhook) return delivery;
  if (webhook.status === 'paused' && !options.inline) {
    await deps.deliveries.hold(delivery.org_id, delivery.id, deps.owner);
    countHeld();
    return delivery;
  }

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
    timeoutMs: deps.settings.timeoutMs,
    allowList: deps.settings.allowList,
  });
  const now = deps.now();
  const outcome = planAttemptOutcome({
    attempt: delivery.attempt + 1,
    result,
    startedAt,
    scheduleMs: deps.settings.scheduleMs,
    retries: !delivery.is_test,
    now,
  });

  const recorded = await deps.deliveries.recordAttempt(delivery.org_id, delivery.id, deps.owner, delivery.attempt, {
    set: {
      status: outcome.status,
      attempt: outcome.attempt.attempt,
      response_status: result.statusCode,
      response_excerpt: result.responseExcerpt,
      error: outcome.error,
      duration_ms: result.durationMs,
      next_attempt_at: outcome.next_attempt_at,
      completed_at: outcome.completed_at,
      request_headers: headers,
    },
    attempt: outcome.attempt,
  });
  if (!recorded) {
    deps.logger.warn({ delivery: delivery.id }, 'lease lost before the attempt was recorded; the other replica records it');
    return delivery;
  }
  countAttempt(outcome.status, result.durationMs, delivery.is_test ? 'test' : options.inline ? 'redeliver' : 'event');
  // Test deliveries report on the endpoint without touching its monitoring fields or pausing it.
  if (!delivery.is_test) await updateHealth(deps, webhook, outcome, now);
  return recorded;
}

async function updateHealth(deps: WebhookDeps, webhook: WebhookRecord, outcome: AttemptOutcome, now: Date): Promise<void> {
  if (outcome.failureReason === null) {
    await deps.webhooks.recordSuccess(webhook.org_id, webhook.id, now);
    return;
  }
  const after = await deps.webhooks.recordFailure(webhook.org_id, webhook.id, now, outcome.failureReason);
  if (!after) return;
  const tooMany = after.consecutive_failures >= deps.settings.pauseAfterFailures;
  if ((tooMany || outcome.pauseSubscription) && (await deps.webhooks.pauseIfActive(webhook.org_id, webhook.id, now))) {
    countPaused(outcome.pauseSubscription ? 'gone' : 'failures');
    deps.logger.warn(
      { webhook: webhook.id, org_id: webhook.org_id, failures: after.consecutive_failures, gone: outcome.pauseSubscription },
      'webhook subscription paused',
    );
  }
}
