import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { sendAttempt } from '../domain/attempt';
import { countHeld } from '../domain/delivery-metrics';
import type { AttemptResult } from '../domain/attempt-result';
import type { LeasedDelivery, WebhookDeps } from '../domain/deps';
import type { PutBack, UnstoredPart } from '../domain/unstored-part';
import type { DeliveryRecord } from '../repository/delivery.repository';
import type { WebhookRecord } from '../repository/webhook.repository';
import { FairQueue } from './fair-queue';
import { LeaseKeeper } from './lease-keeper';

export interface DispatcherLimits {
  /** Attempts in flight in this replica (those waiting on a slow receiver not counted: see slowAnswerMs). */
  concurrency: number;
  /** Attempts in flight to one subscription, slow ones included: a slow endpoint holds at most this many. */
  endpointConcurrency: number;
  /** Attempts in flight for one organization, over all its subscriptions (slow ones not counted). */
  orgConcurrency: number;
  /**
   * An attempt still unanswered after this long stops counting toward `concurrency` and `orgConcurrency` (it keeps
   * its subscription's slot): a slow receiver holds a socket, not the capacity the organization's and the replica's
   * other subscriptions are sent with.
   */
  slowAnswerMs: number;
  /** Attempts in flight in all, slow ones included: the sockets this replica holds at most. */
  maxInFlight: number;
  /** Deliveries kept in memory per subscription; beyond it they wait in the database, still due. */
  endpointQueue: number;
  /** Deliveries queued in memory in all; beyond it, new deliveries wait in the database, still due. */
  queue: number;
  /**
   * Attempts answered whose record is not stored yet (those in flight are bounded by `maxInFlight`); at this many,
   * no attempt starts until the recorder caught up.
   * The store can record more slowly than receivers answer: without it, what waits for the recorder grew with the
   * backlog being drained.
   */
  unrecorded: number;
}

const tracer = trace.getTracer('webhooks');

/**
 * Sends the deliveries leased to this replica, fairly: one queue per subscription, served in turn across
 * organizations and then across each organization's subscriptions, with a cap on attempts in flight per
 * subscription and per organization. A slow or failing endpoint therefore uses at most its share of the slots and
 * never delays the others; its backlog waits in its own queue (and, beyond `endpointQueue`, in the database). An
 * attempt waiting longer than `slowAnswerMs` gives its organization's and the replica's slot back, so that even an
 * organization whose every other subscription is slow still sends to its fast ones at once.
 */
export class DeliveryDispatcher {
  private readonly queue = new FairQueue<DeliveryRecord>();
  /** Ids queued or in flight here, with their delivery (for lease renewal). */
  private readonly held = new Map<string, DeliveryRecord>();
  /** Ids queued or in flight here that are not stored yet, with the part that stores them. */
  private readonly unstored = new Map<string, UnstoredPart>();
  /** Attempts in flight: `total` and `org` count those not yet slow, `slow` the others, `endpoint` all. */
  private readonly inFlight = { total: 0, slow: 0, org: new Map<string, number>(), endpoint: new Map<string, number>() };
  private readonly running = new Set<Promise<void>>();
  /** Attempts sent whose record the recorder has not stored yet. */
  private unrecorded = 0;
  private readonly leases: LeaseKeeper;
  private stopped = false;

  constructor(
    private readonly deps: WebhookDeps,
    private readonly limits: DispatcherLimits,
    /** Called when room appeared for deliveries that wait in the database (the scanner claims them). */
    private readonly onRoom: () => void,
    /** Called when a retry was stored, with its due time (the scanner wakes by then). */
    private readonly onRetry: (at: Date) => void,
  ) {
    this.leases = new LeaseKeeper(deps, () => this.held.values());
  }

  start(): void {
    this.leases.start();
  }

  /** Queues leased deliveries; those beyond the memory queue or their subscription's are given back to the database, due. */
  accept(leased: LeasedDelivery[]): void {
    const refused: string[] = [];
    for (const { delivery, webhook, part } of leased) {
      if (this.held.has(delivery.id)) continue;
      if (
        this.stopped ||
        this.queue.size >= this.limits.queue ||
        this.queue.laneSize(delivery.org_id, delivery.webhook_id) >= this.limits.endpointQueue
      ) {
        if (!part?.putBack(delivery.id, 'due')) refused.push(delivery.id);
        continue;
      }
      if (webhook) this.deps.subscriptions.prime([webhook]);
      if (part) this.unstored.set(delivery.id, part);
      this.held.set(delivery.id, delivery);
      this.queue.push(delivery.org_id, delivery.webhook_id, delivery);
    }
    if (refused.length > 0) void this.putBack(refused, 'due');
    this.pump();
  }

  /** How many more deliveries this replica can take into memory. */
  room(): number {
    return this.stopped ? 0 : Math.max(0, this.limits.queue - this.queue.size);
  }

  /**
   * Subscriptions with more than half their queue in memory here: the scanner leaves their due deliveries in the
   * database until it drained to half. A claim then always fits in the queue; claiming into a nearly full one gave
   * most of each claim straight back, two writes per slow answer while a slow endpoint's backlog overflowed.
   */
  busyEndpoints(): string[] {
    return [...this.queue.fullLanes(this.halfQueue + 1)];
  }

  private get halfQueue(): number {
    return Math.floor(this.limits.endpointQueue / 2);
  }

  /** The subscription was paused: its queued deliveries are held in the database until it is reactivated. */
  holdEndpoint(orgId: string, webhookId: string): void {
    const drained = this.queue.drain(orgId, webhookId);
    if (drained.length === 0) return;
    for (const delivery of drained) this.held.delete(delivery.id);
    countHeld(drained.length);
    void this.putBack(
      drained.map((delivery) => delivery.id),
      'held',
    );
    this.onRoom();
  }

  /** Stops starting attempts, gives the queued deliveries back, and waits for those in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.leases.stop();
    const queued = [...this.queue.items()].map((delivery) => delivery.id);
    for (const id of queued) this.held.delete(id);
    await this.putBack(queued, 'due');
    await Promise.allSettled([...this.running]);
    await this.deps.recorder.flush();
  }

  /**
   * Deliveries that leave this replica's memory unsent, due again for any replica or held: a part still open
   * stores them so; the others are changed in the database, once their part (if any) is stored.
   */
  private async putBack(ids: string[], how: PutBack): Promise<void> {
    const inDatabase: string[] = [];
    const parts = new Set<UnstoredPart>();
    for (const id of ids) {
      const part = this.unstored.get(id);
      this.unstored.delete(id);
      if (part?.putBack(id, how)) continue;
      if (part) parts.add(part);
      inDatabase.push(id);
    }
    if (inDatabase.length === 0) return;
    try {
      // A part that could not be stored leaves nothing to change: its batch of events is read again.
      await Promise.allSettled([...parts].map((part) => part.stored));
      if (how === 'due') await this.deps.deliveries.releaseLeases(inDatabase, this.deps.owner);
      else await this.deps.deliveries.hold(inDatabase, this.deps.owner);
    } catch (error) {
      this.deps.logger.error({ err: error, deliveries: inDatabase.length, how }, 'handing deliveries back failed; their leases expire');
    }
  }

  private canStart = (orgId: string, webhookId: string): boolean =>
    (this.inFlight.org.get(orgId) ?? 0) < this.limits.orgConcurrency &&
    (this.inFlight.endpoint.get(webhookId) ?? 0) < this.limits.endpointConcurrency;

  private pump(): void {
    const { inFlight, limits } = this;
    while (
      !this.stopped &&
      inFlight.total < limits.concurrency &&
      inFlight.total + inFlight.slow < limits.maxInFlight &&
      this.unrecorded < limits.unrecorded
    ) {
      const next = this.queue.next(this.canStart);
      if (!next) return;
      this.launch(next.item);
      // A busy subscription queue or the memory queue fell to half: the scanner may claim again.
      const left = this.queue.laneSize(next.tenant, next.lane);
      if (left === this.halfQueue || this.queue.size === Math.floor(this.limits.queue / 2)) this.onRoom();
    }
  }

  private launch(delivery: DeliveryRecord): void {
    this.unstored.get(delivery.id)?.started();
    this.countActive(delivery, 1);
    adjust(this.inFlight.endpoint, delivery.webhook_id, 1);
    let slow = false;
    const slowTimer = setTimeout(() => {
      slow = true;
      this.inFlight.slow++;
      this.countActive(delivery, -1);
      this.pump();
    }, this.limits.slowAnswerMs);
    slowTimer.unref();
    const task = this.attempt(delivery).finally(() => {
      clearTimeout(slowTimer);
      this.running.delete(task);
      this.held.delete(delivery.id);
      this.unstored.delete(delivery.id);
      if (slow) this.inFlight.slow--;
      else this.countActive(delivery, -1);
      adjust(this.inFlight.endpoint, delivery.webhook_id, -1);
      this.pump();
    });
    this.running.add(task);
  }

  /** Attempts not yet slow: what the replica's and the organization's caps count. */
  private countActive(delivery: DeliveryRecord, change: 1 | -1): void {
    this.inFlight.total += change;
    adjust(this.inFlight.org, delivery.org_id, change);
  }

  /**
   * The attempt joins the trace of the API write that caused its event (context carried through Kafka). The span
   * is made the active context only when it is recorded: an unsampled attempt (most of them) skips the context
   * switch and the trace-context parse, about a tenth of the CPU of a delivery in the drain profile (BENCHMARKS.md).
   */
  private async attempt(delivery: DeliveryRecord): Promise<void> {
    const parent = delivery.trace.traceparent ? propagation.extract(ROOT_CONTEXT, delivery.trace) : ROOT_CONTEXT;
    const span = tracer.startSpan('webhook.deliver', undefined, parent);
    const run = async () => {
      try {
        const webhook = await this.deps.subscriptions.get(delivery.org_id, delivery.webhook_id);
        if (webhook) await this.deliver(delivery, webhook, span);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        // The lease expires and another pass makes the attempt again.
        this.deps.logger.error({ err: error, delivery: delivery.id }, 'delivery attempt failed unexpectedly');
      } finally {
        span.end();
      }
    };
    if (!span.isRecording()) return run();
    span.setAttributes({ 'webhook.id': delivery.webhook_id, 'webhook.delivery_id': delivery.id, 'event.type': delivery.event_type });
    return context.with(trace.setSpan(parent, span), run);
  }

  private async deliver(delivery: DeliveryRecord, webhook: WebhookRecord, span: { setAttribute(key: string, value: string): void }) {
    if (webhook.status === 'paused') {
      this.holdEndpoint(delivery.org_id, delivery.webhook_id);
      await this.putBack([delivery.id], 'held');
      countHeld();
      return;
    }
    const renewing = this.leases.ensureFor(delivery);
    if (renewing) await renewing;
    const result = await sendAttempt(this.deps, delivery, webhook, 'event');
    span.setAttribute('webhook.status', result.outcome.status);
    // Stored in the background, in a batch with others; the slot is free for the next attempt meanwhile (within
    // `unrecorded`). A retry scheduled by it may be due before the scanner's next look: once stored, the scanner
    // is told when.
    this.unrecorded++;
    const retryAt = result.outcome.next_attempt_at;
    this.store(result).then(
      () => {
        this.recorded();
        if (retryAt) this.onRetry(retryAt);
      },
      () => this.recorded(),
    );
  }

  /**
   * A first attempt goes into its part's insert while the part is open; any other attempt to the recorder, once
   * the part that stores its delivery (if any) is stored.
   */
  private store(attempt: AttemptResult): Promise<void> {
    const part = this.unstored.get(attempt.delivery.id);
    this.unstored.delete(attempt.delivery.id);
    if (!part) return this.deps.recorder.record(attempt);
    if (part.take(attempt)) return part.stored.then(() => this.deps.recorder.recordStored(attempt));
    return part.stored.then(() => this.deps.recorder.record(attempt));
  }

  private recorded(): void {
    if (this.unrecorded-- === this.limits.unrecorded) this.pump();
  }
}

function adjust(counts: Map<string, number>, key: string, change: number): void {
  const value = (counts.get(key) ?? 0) + change;
  if (value > 0) counts.set(key, value);
  else counts.delete(key);
}
