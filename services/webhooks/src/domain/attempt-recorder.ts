import { isTransientError, type Logger } from '@crm/shared';
import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import { attemptLogId } from '../repository/attempt-log';
import type { AttemptWrite } from '../repository/delivery-queue';
import type { DeliveryRepository, DeliveryStatus } from '../repository/delivery.repository';
import type { HealthChange, WebhookRepository } from '../repository/webhook.repository';
import type { AttemptResult } from './attempt-result';
import { countAttempt, countPaused, type DeliveryTrigger } from './delivery-metrics';

export interface RecorderOptions {
  deliveries: DeliveryRepository;
  webhooks: WebhookRepository;
  owner: string;
  pauseAfterFailures: number;
  logger: Logger;
  /** A subscription was just paused here: what is queued for it must be held. */
  onPaused: (orgId: string, webhookId: string) => void;
  /** How long an attempt waits for others to share its write (default 5 ms). */
  flushMs?: number;
  /** The most attempts one bulk write carries (default 1,000). */
  maxBatch?: number;
}

/**
 * What the recorder keeps of an attempt until it is stored: its write and what the metrics and the pause rules
 * need. Not the attempt itself: its delivery (with the body) and subscription would stay alive for as long as the
 * store is behind the sends.
 */
interface Pending {
  /** Null for an attempt stored with its delivery (unstored-part.ts): only its metrics and pause rules are left. */
  write: AttemptWrite | null;
  status: DeliveryStatus;
  durationMs: number;
  trigger: DeliveryTrigger;
  /** The subscription's monitoring input; null for a test send, which leaves it alone. */
  health: AttemptHealth | null;
  done: () => void;
  failed: (error: unknown) => void;
}

interface AttemptHealth {
  orgId: string;
  webhookId: string;
  failureReason: string | null;
  gone: boolean;
  at: Date;
}

/** A database blip must not turn into duplicate sends: the write is retried while the store is unavailable. */
const writeRetry = retry(handleWhen(isTransientError), {
  maxAttempts: 8,
  backoff: new ExponentialBackoff({ initialDelay: 50, maxDelay: 2_000 }),
});

/**
 * Stores attempts in batches (group commit): attempts that finish while a write is in progress, or within a few
 * milliseconds of an idle recorder, share one bulk write of their deliveries and one update per subscription of its
 * monitoring fields, instead of three round trips each. Then applies the pause rules: 410 Gone pauses at once,
 * `pauseAfterFailures` failures in a row pause. One write at a time, so a subscription's successes and failures
 * are applied in the order they happened.
 */
export class AttemptRecorder {
  private batch: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The write in progress: attempts that finish meanwhile wait for it, then go together in the next one. */
  private writing: Promise<void> | undefined;

  constructor(private readonly options: RecorderOptions) {}

  /** Resolves once the attempt is stored (or its lease was lost to another replica, which stores its own). */
  record(attempt: AttemptResult): Promise<void> {
    return this.enqueue(attempt, toWrite(attempt));
  }

  /** An attempt already stored with its delivery: counted and its pause rules applied, in order with the others. */
  recordStored(attempt: AttemptResult): Promise<void> {
    return this.enqueue(attempt, null);
  }

  private enqueue(attempt: AttemptResult, write: AttemptWrite | null): Promise<void> {
    const { delivery, webhook, outcome, result, trigger, at } = attempt;
    const health = delivery.is_test
      ? null
      : { orgId: webhook.org_id, webhookId: webhook.id, failureReason: outcome.failureReason, gone: outcome.pauseSubscription, at };
    return new Promise((done, failed) => {
      this.batch.push({ write, status: outcome.status, durationMs: result.durationMs, trigger, health, done, failed });
      if (!this.writing) this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs ?? 5);
    });
  }

  /** Writes what is waiting; resolves when everything recorded so far is stored. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing) await this.writing;
    if (this.batch.length === 0) return;
    this.writing = this.writeAll().finally(() => {
      this.writing = undefined;
      // Recorded between the last batch and now: nothing else would write them.
      if (this.batch.length > 0) void this.flush();
    });
    await this.writing;
  }

  /** Batch after batch while attempts keep coming: the batch size follows the store's speed. */
  private async writeAll(): Promise<void> {
    while (this.batch.length > 0) {
      const batch = this.batch.splice(0, this.options.maxBatch ?? 1_000);
      await this.write(batch);
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      const writes = batch.flatMap(({ write }) => (write ? [write] : []));
      const stored =
        writes.length > 0 ? await writeRetry.execute(() => this.options.deliveries.recordAttempts(this.options.owner, writes)) : 0;
      if (stored < writes.length)
        this.options.logger.warn(
          { lost: writes.length - stored },
          'leases lost before attempts were recorded; the other replica records them',
        );
      for (const { status, durationMs, trigger } of batch) countAttempt(status, durationMs, trigger);
      await this.applyHealth(batch.flatMap(({ health }) => (health ? [health] : [])));
      for (const pending of batch) pending.done();
    } catch (error) {
      // The leases run out and the attempts are made again: receivers may see a duplicate, never a loss.
      this.options.logger.error({ err: error, attempts: batch.length }, 'recording attempts failed');
      for (const pending of batch) pending.failed(error);
    }
  }

  private async applyHealth(attempts: AttemptHealth[]): Promise<void> {
    const changes = new Map<string, HealthChange & { gone: boolean }>();
    for (const { orgId, webhookId, failureReason, gone, at } of attempts) {
      const change = changes.get(webhookId) ?? {
        orgId,
        id: webhookId,
        reset: false,
        failures: 0,
        lastSuccessAt: null,
        lastFailureAt: null,
        lastFailureReason: null,
        gone: false,
      };
      if (failureReason === null) Object.assign(change, { reset: true, failures: 0, lastSuccessAt: at });
      else Object.assign(change, { failures: change.failures + 1, lastFailureAt: at, lastFailureReason: failureReason });
      change.gone ||= gone;
      changes.set(webhookId, change);
    }
    if (changes.size === 0) return;
    const failing = await this.options.webhooks.applyHealth([...changes.values()]);
    for (const webhook of failing) {
      const gone = changes.get(webhook.id)?.gone ?? false;
      if (!gone && webhook.consecutive_failures < this.options.pauseAfterFailures) continue;
      if (!(await this.options.webhooks.pauseIfActive(webhook.org_id, webhook.id, new Date(), 'consecutive_failures'))) continue;
      countPaused(gone ? 'gone' : 'failures');
      this.options.logger.warn(
        { webhook: webhook.id, org_id: webhook.org_id, failures: webhook.consecutive_failures, gone },
        'webhook subscription paused',
      );
      this.options.onPaused(webhook.org_id, webhook.id);
    }
  }
}

function toWrite({ delivery, outcome, headers }: AttemptResult): AttemptWrite {
  return {
    id: delivery.id,
    attemptsBefore: delivery.attempt,
    status: outcome.status,
    next_attempt_at: outcome.next_attempt_at,
    entry: {
      ...outcome.attempt,
      id: attemptLogId(delivery.id, outcome.attempt),
      delivery_id: delivery.id,
      org_id: delivery.org_id,
      webhook_id: delivery.webhook_id,
      request_headers: headers,
      completed_at: outcome.completed_at,
      expires_at: delivery.expires_at,
    },
  };
}
