import { AppError } from '@crm/shared/core';
import { AdaptiveConcurrency } from './adaptive-concurrency';

/**
 * One organization's share of the gateway: requests served at once (at most: see AdaptiveConcurrency), requests
 * waiting, and the longest wait (0: no bound of its own; the request's deadline bounds it).
 */
export interface BulkheadLimits {
  concurrency: number;
  queue: number;
  queueWaitMs: number;
}

interface Waiter {
  start: () => void;
  refuse: (error: AppError) => void;
}

interface Compartment {
  active: number;
  waiting: Waiter[];
  places: AdaptiveConcurrency;
  /** Moving average of how long this organization's requests were in service (ms): the expected wait per place. */
  serviceMs: number;
}

/** Weight of the newest request in the moving average of service times. */
const SERVICE_TIME_WEIGHT = 0.2;
/**
 * Organizations whose adapted limits are remembered (each with up to one norm per operation); beyond, the longest
 * idle are forgotten, and start again from their plan's places, which they re-adapt within a few answers.
 */
const MAX_IDLE_COMPARTMENTS = 1_000;

/** How to run one request in its organization's compartment. */
export interface BulkheadRun {
  /** The request's own deadline (ms since the epoch): a request still waiting then is refused, never started. */
  deadline?: number;
  /** Aborts when the client has gone: its place is given up. */
  abandoned?: AbortSignal;
  /** What the request does (its operation id): latency is compared per operation (AdaptiveConcurrency). */
  operation?: string;
}

/**
 * Bulkheads per organization: each organization has its own bounded number of requests in service and its own
 * bounded queue, so one organization saturating the API waits (and is refused) within its own compartment while
 * the others keep theirs. A request that finds the queue full is refused at once; so is one whose expected wait
 * (its place in the queue / the concurrency × the organization's recent service time) would pass its deadline or the
 * queue wait: it would be refused later anyway, after holding its connection. One that waits past either is refused
 * then. None of them is started. On an idle system the expected wait is a fraction of the deadline, so a burst that
 * fits the queue is served in full: only an organization that keeps its own requests slow is shed.
 *
 * Written here rather than with cockatiel's BulkheadPolicy (3.2.1): a waiter cancelled there keeps its queue slot
 * until its turn, and its turn then frees the execution slot without starting the next waiter, so a bounded wait
 * would shrink the concurrency it is meant to keep.
 */
export class TenantBulkheads {
  /** Per organization, the idle ones last, longest idle first (a Map keeps insertion order). */
  private readonly compartments = new Map<string, Compartment>();

  /**
   * `latencyTolerance`: how much slower than its own norm an organization's requests may get before its places
   * shrink (AdaptiveConcurrency); 0 keeps every plan's places fixed.
   */
  constructor(
    private readonly limitsOf: (plan: string) => BulkheadLimits,
    private readonly latencyTolerance = 0,
  ) {}

  /** Runs `work` in `tenant`'s compartment. */
  async run<T>(tenant: string, plan: string, work: () => Promise<T>, how: BulkheadRun = {}): Promise<T> {
    const limits = this.limitsOf(plan);
    if (limits.concurrency <= 0) return work();
    const compartment = this.compartmentOf(tenant, limits);
    if (compartment.active >= compartment.places.places) await this.wait(compartment, limits, how.deadline ?? Infinity, how.abandoned);
    else compartment.active += 1;
    const startedAt = Date.now();
    try {
      return await work();
    } finally {
      const serviceMs = Date.now() - startedAt;
      compartment.serviceMs += SERVICE_TIME_WEIGHT * (serviceMs - compartment.serviceMs);
      compartment.places.record(how.operation ?? '', serviceMs, compartment.active);
      this.release(tenant, compartment);
    }
  }

  /** Requests `tenant` may have in service now (for tests and metrics). */
  placesOf(tenant: string, plan: string): number {
    return this.compartments.get(tenant)?.places.places ?? this.limitsOf(plan).concurrency;
  }

  /** Requests of `tenant` in service now (for tests and metrics). */
  activeOf(tenant: string): number {
    return this.compartments.get(tenant)?.active ?? 0;
  }

  /**
   * The refusal `tenant`'s next request would get now, before any work on it (its places taken and its queue full,
   * or its expected wait past `deadline`); undefined when it would be served or may wait. `open`: the organization's
   * requests open in this process, this one included (inflight-limit.ts) — those still on their way to their place
   * (their key being checked, their rate counted) are ahead of this one too, so a burst that arrived at once is
   * judged as a whole, not each request against a queue the others have not reached yet. The same error object each
   * time for the same limits, so it can be answered from pre-rendered JSON (prerendered-refusal.ts).
   */
  refusal(tenant: string, plan: string, deadline: number, open = 0): AppError | undefined {
    const limits = this.limitsOf(plan);
    const compartment = this.compartments.get(tenant);
    if (limits.concurrency <= 0 || !compartment) return undefined;
    const ahead = Math.max(compartment.active + compartment.waiting.length, open - 1);
    const places = compartment.places.places;
    if (ahead < places) return undefined;
    return waitRefusal(ahead - places, places, compartment.serviceMs, limits, waitBound(limits, deadline));
  }

  private wait(compartment: Compartment, limits: BulkheadLimits, deadline: number, abandoned?: AbortSignal): Promise<void> {
    const boundMs = waitBound(limits, deadline);
    const refused = waitRefusal(compartment.waiting.length, compartment.places.places, compartment.serviceMs, limits, boundMs);
    if (refused) return Promise.reject(refused);
    return new Promise<void>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        abandoned?.removeEventListener('abort', onAbandoned);
        const index = compartment.waiting.indexOf(waiter);
        if (index >= 0) compartment.waiting.splice(index, 1);
      };
      const waiter: Waiter = {
        start: () => {
          leave();
          resolve();
        },
        refuse: (error) => {
          leave();
          reject(error);
        },
      };
      // No timer without a bound (setTimeout would fire at once on Infinity).
      const timer = Number.isFinite(boundMs) ? setTimeout(() => waiter.refuse(concurrencyLimited(limits, 'wait')), boundMs) : undefined;
      const onAbandoned = () => waiter.refuse(new AppError('SERVICE_UNAVAILABLE', 'The client closed the request while it waited.'));
      abandoned?.addEventListener('abort', onAbandoned, { once: true });
      compartment.waiting.push(waiter);
    });
  }

  /**
   * Gives the freed place back and starts the longest waiters while there are places: none when the limit has
   * just shrunk below what is in service, more than one when it has grown.
   */
  private release(tenant: string, compartment: Compartment): void {
    compartment.active -= 1;
    while (compartment.waiting.length > 0 && compartment.active < compartment.places.places) {
      compartment.active += 1;
      compartment.waiting[0]!.start();
    }
    if (compartment.active > 0) return;
    // Idle: kept (its adapted limit holds when it comes back) and moved behind the others, the longest idle forgotten.
    this.compartments.delete(tenant);
    this.compartments.set(tenant, compartment);
    for (const [other, kept] of this.compartments) {
      if (this.compartments.size <= MAX_IDLE_COMPARTMENTS) break;
      if (kept.active === 0) this.compartments.delete(other);
    }
  }

  private compartmentOf(tenant: string, limits: BulkheadLimits): Compartment {
    let compartment = this.compartments.get(tenant);
    if (!compartment) {
      compartment = { active: 0, waiting: [], serviceMs: 0, places: new AdaptiveConcurrency(limits.concurrency, this.latencyTolerance) };
      this.compartments.set(tenant, compartment);
    } else compartment.places.setCeiling(limits.concurrency);
    return compartment;
  }
}

/** The longest a request may wait for a place: until its deadline, or the queue wait when that is shorter. */
const waitBound = (limits: BulkheadLimits, deadline: number): number =>
  Math.min(limits.queueWaitMs > 0 ? limits.queueWaitMs : Infinity, deadline - Date.now());

/**
 * Why a request that finds every one of `places` taken and `waiting` requests ahead of it in the queue cannot wait
 * `boundMs` for a place, or undefined: it may.
 */
function waitRefusal(waiting: number, places: number, serviceMs: number, limits: BulkheadLimits, boundMs: number): AppError | undefined {
  if (waiting >= limits.queue) return concurrencyLimited(limits, 'full');
  const expectedMs = ((waiting + 1) / places) * serviceMs;
  return boundMs <= 0 || expectedMs >= boundMs ? concurrencyLimited(limits, 'wait') : undefined;
}

/** The refusals made so far, per limits and reason: a flood of refusals allocates none. */
const refusals = new WeakMap<BulkheadLimits, Record<'full' | 'wait', AppError>>();

/**
 * The organization's own concurrency is used up: 429 RATE_LIMITED (its own limit, like its request rate), not
 * 503, which says the platform is at capacity. Retry-After 1 s: a place frees as soon as one request ends.
 */
function concurrencyLimited(limits: BulkheadLimits, why: 'full' | 'wait'): AppError {
  let made = refusals.get(limits);
  if (!made) {
    made = { full: concurrencyError(limits, 'full'), wait: concurrencyError(limits, 'wait') };
    refusals.set(limits, made);
  }
  return made[why];
}

function concurrencyError(limits: BulkheadLimits, why: 'full' | 'wait'): AppError {
  const message =
    why === 'full'
      ? `This organization has as many requests in service as it may now (at most ${limits.concurrency}) and ${limits.queue} waiting; retry after the indicated time.`
      : `This organization's requests in service free places too slowly for this one to start in time; retry after the indicated time.`;
  return new AppError('RATE_LIMITED', message, {
    policy: 'concurrency',
    limit: limits.concurrency,
    queue: limits.queue,
    retry_after_seconds: 1,
  });
}

/**
 * Limits per plan from `spec` ("free:16,starter:24,pro:32,enterprise:48", or one number for every plan); a plan not
 * named (or a key without a plan) gets the smallest named one. Every plan's queue holds `queue` requests.
 */
export function limitsByPlan(spec: string, queue: number, queueWaitMs: number): (plan: string) => BulkheadLimits {
  const table = new Map<string, number>();
  for (const entry of spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    // A bare number is every plan's ("0": bulkheads off).
    const [plan, value] = entry.includes(':') ? entry.split(':') : ['*', entry];
    const concurrency = Number(value);
    if (!plan || !Number.isInteger(concurrency) || concurrency < 0) throw new Error(`bad plan concurrency "${entry}" (want plan:number)`);
    table.set(plan.trim(), concurrency);
  }
  if (table.size === 0) throw new Error('no plan concurrency given (want plan:number,…)');
  const smallest = Math.min(...table.values());
  // One limits object per plan, made once: the refusals are kept per limits object (concurrencyLimited).
  const byPlan = new Map<string, BulkheadLimits>();
  return (plan) => {
    let limits = byPlan.get(plan);
    if (!limits) {
      limits = { concurrency: table.get(plan) ?? smallest, queue, queueWaitMs };
      if (byPlan.size < 1_000) byPlan.set(plan, limits);
    }
    return limits;
  };
}
