import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { attemptDelivery } from '../domain/attempt';
import type { WebhookDeps } from '../domain/deps';
import type { DeliveryRecord } from '../repository/delivery.repository';

export interface DeliveryWorkerOptions {
  deps: WebhookDeps;
  concurrency: number;
  /** The longest sleep with nothing due (see WEBHOOK_IDLE_CHECK_MS). */
  idleCheckMs: number;
}

const tracer = trace.getTracer('webhooks');

/**
 * Sends due attempts. The schedule lives in the database (`next_attempt_at`), so a restart loses nothing; each due
 * attempt is leased before it is sent, so replicas share the work without sending the same attempt twice. It
 * sleeps until the next due attempt or expiring lease (an indexed query), and is woken at once when the consumer
 * stored deliveries or an attempt finished: no work when idle.
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
   * Takes deliveries this replica stored already leased: their first attempt leaves from memory, without a
   * round trip to claim it. Leases outlast the queue: at most `concurrency` attempts run at once, each bounded
   * by the timeout, and the lease is longer than it.
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
          await this.sleep(1_000);
          continue;
        }
      }
      for (const delivery of claimed) if (!this.known.has(delivery.id)) this.launch(delivery);
      // A full batch means more may be due: claim again at once. Otherwise sleep until the next due time, or
      // until a free slot or a new delivery wakes us.
      if (this.stopped || this.woken || (free > 0 && claimed.length === free)) continue;
      const idle = free > 0 ? await this.untilNextDue() : this.options.idleCheckMs;
      if (!this.woken && !this.stopped) await this.sleep(idle);
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
      // Claim again once half the slots are free, not after every attempt: fewer claims, in batches.
      if (this.inFlight.size <= this.options.concurrency / 2) this.nudge();
    });
    this.inFlight.add(task);
  }

  /** The attempt joins the trace of the API write that caused its event (context carried through Kafka). */
  private async attempt(delivery: DeliveryRecord): Promise<void> {
    const parent = propagation.extract(ROOT_CONTEXT, delivery.trace);
    await context.with(parent, () =>
      tracer.startActiveSpan(
        'webhook.deliver',
        { attributes: { 'webhook.id': delivery.webhook_id, 'webhook.delivery_id': delivery.id, 'event.type': delivery.event_type } },
        async (span) => {
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
        },
      ),
    );
  }

  private async untilNextDue(): Promise<number> {
    try {
      const next = await this.options.deps.deliveries.nextWakeAt();
      const wait = next ? next.getTime() - this.options.deps.now().getTime() + 5 : Infinity;
      return Math.max(5, Math.min(this.options.idleCheckMs, wait));
    } catch (error) {
      this.options.deps.logger.error({ err: error }, 'reading the next due delivery failed; retrying');
      return 1_000;
    }
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
