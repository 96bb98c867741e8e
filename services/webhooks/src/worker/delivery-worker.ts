import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { attemptDelivery } from '../domain/attempt';
import type { WebhookDeps } from '../domain/deps';
import type { DeliveryRecord } from '../repository/delivery.repository';

export interface DeliveryWorkerOptions {
  deps: WebhookDeps;
  concurrency: number;
  pollIntervalMs: number;
}

const tracer = trace.getTracer('webhooks');

/**
 * Sends due attempts. The schedule lives in the database (`next_attempt_at`), so a restart loses nothing; each due
 * attempt is leased before it is sent, so replicas share the work without sending the same attempt twice. Polls,
 * and is woken at once when the consumer stored deliveries or an attempt finished.
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries leased to this replica, waiting for a free slot; and every id queued or in flight. */
  private readonly queued: DeliveryRecord[] = [];
  private readonly known = new Set<string>();
  private stopped = true;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private woken = false;

  constructor(private readonly options: DeliveryWorkerOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /**
   * Takes deliveries this replica stored already leased: their first attempt needs no scan of the database
   * (the scan is slow on FerretDB, which does not use an index for it). Leases outlast the queue: at most
   * `concurrency` attempts run at once, each bounded by the timeout, and the lease is longer than it.
   */
  accept(leased: DeliveryRecord[]): void {
    for (const delivery of leased) {
      if (this.known.has(delivery.id)) continue;
      this.known.add(delivery.id);
      this.queued.push(delivery);
    }
    this.drainQueue();
  }

  nudge(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Stops claiming, then lets the attempts in flight finish (each is bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.nudge();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  private async run(): Promise<void> {
    const { deps, concurrency } = this.options;
    while (!this.stopped) {
      this.woken = false;
      const free = concurrency - this.inFlight.size;
      let claimed: DeliveryRecord[] = [];
      if (free > 0) {
        try {
          claimed = await deps.deliveries.claimDue(deps.now(), free, deps.settings.leaseMs, deps.owner);
        } catch (error) {
          deps.logger.error({ err: error }, 'claiming due deliveries failed; retrying');
        }
      }
      for (const delivery of claimed) if (!this.known.has(delivery.id)) this.launch(delivery);
      // A full batch means more may be due; otherwise wait for a nudge or the next poll.
      if (!this.stopped && !this.woken && (claimed.length === 0 || claimed.length < free)) await this.sleep(this.options.pollIntervalMs);
    }
  }

  private drainQueue(): void {
    while (!this.stopped && this.inFlight.size < this.options.concurrency) {
      const next = this.queued.shift();
      if (!next) return;
      this.launch(next);
    }
  }

  private launch(delivery: DeliveryRecord): void {
    this.known.add(delivery.id);
    const task = this.attempt(delivery).finally(() => {
      this.inFlight.delete(task);
      this.known.delete(delivery.id);
      if (this.queued.length > 0) return this.drainQueue();
      // Claim again once half the slots are free, not after every attempt: each claim scans for due deliveries,
      // which on FerretDB (no index use for this query) costs a pass over the collection.
      if (this.inFlight.size <= this.options.concurrency / 2) this.nudge();
    });
    this.inFlight.add(task);
  }

  /** The attempt joins the trace of the API write that caused its event (context carried through Kafka). */
  private async attempt(delivery: DeliveryRecord): Promise<void> {
    const parent = propagation.extract(ROOT_CONTEXT, delivery.trace);
    await context.with(parent, () =>
      tracer.startActiveSpan('webhook.deliver', { attributes: { 'webhook.id': delivery.webhook_id, 'webhook.delivery_id': delivery.id, 'event.type': delivery.event_type } }, async (span) => {
        try {
          const after = await attemptDelivery(this.options.deps, delivery);
          span.setAttribute('webhook.status', after.status);
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          // The lease expires and another pass retries the attempt.
          this.options.deps.logger.error({ err: error, delivery: delivery.id }, 'delivery attempt failed unexpectedly');
        } finally {
          span.end();
        }
      }),
    );
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }
}
