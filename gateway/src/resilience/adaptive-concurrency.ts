/**
 * How many requests one organization may have in service now, adapted to its own latency (a gradient limit, after
 * Netflix's concurrency-limits): while its requests take no longer than `tolerance` × the fastest this organization
 * has recently seen for the same operation, the limit climbs back towards its plan's (the ceiling); when they take
 * longer, the backends are queueing its work and the limit falls in proportion, down to `FLOOR`. An organization
 * that saturates the backends therefore keeps about as much of its work in them as they can run without queueing,
 * and waits for the rest in its own queue here, where it costs nothing and is shed first, instead of in the event
 * loops and the database that every organization's requests cross (docs/capacity.md: "Adaptive concurrency").
 * One whose latency stays at its own norm (every burst on an unloaded system), or that uses under half its places,
 * keeps them.
 */
export class AdaptiveConcurrency {
  /** Places now: fractional, so that small steps add up. */
  private current: number;
  /** Per operation: the fastest recent service time (ms) and when it was seen. */
  private readonly baselines = new Map<string, { ms: number; at: number }>();

  constructor(
    private ceiling: number,
    private readonly tolerance: number,
  ) {
    this.current = ceiling;
  }

  /** Requests that may be in service at once now. */
  get places(): number {
    return Math.max(Math.min(FLOOR, this.ceiling), Math.floor(this.current));
  }

  /** The plan's limit, when the organization's plan (and so its ceiling) changed. */
  setCeiling(ceiling: number): void {
    if (ceiling === this.ceiling) return;
    this.ceiling = ceiling;
    this.current = Math.min(this.current, ceiling);
  }

  /**
   * One request of `operation` took `ms` in service while `inService` requests of the organization were (itself
   * included). The first of an operation sets its baseline; a baseline not matched again drifts up by
   * `BASELINE_DRIFT_PER_SECOND`, so that one lucky fast answer, or a table that has since grown, is forgotten.
   */
  record(operation: string, ms: number, inService: number, now = Date.now()): void {
    if (this.tolerance <= 0) return;
    const seen = this.baselines.get(operation);
    if (!seen) {
      if (this.baselines.size >= MAX_OPERATIONS) this.baselines.delete(this.baselines.keys().next().value as string);
      this.baselines.set(operation, { ms, at: now });
      return;
    }
    const baseline = seen.ms * (1 + (BASELINE_DRIFT_PER_SECOND * (now - seen.at)) / 1000);
    if (ms <= baseline) {
      seen.ms = ms;
      seen.at = now;
    }
    // An organization using under half its places is not what queues the backends: its answers say nothing about
    // how many it may have (a slow one must not shrink them, nor a fast one bank more for later).
    if (inService < this.places / 2) return;
    // The slack keeps a few milliseconds of jitter on a fast operation from reading as queueing.
    const gradient = Math.min(1, Math.max(0.5, (this.tolerance * baseline + SLACK_MS) / ms));
    const target = gradient < 1 ? this.current * gradient : this.current + 1;
    this.current = Math.min(this.ceiling, Math.max(FLOOR, this.current + SMOOTHING * (target - this.current)));
  }
}

/** No organization is held below two places: one request in flight and the next ready behind it. */
const FLOOR = 2;
const SLACK_MS = 5;
/** Weight of each answer in the limit's moving average: a trend moves it, one slow answer does not. */
const SMOOTHING = 0.2;
const BASELINE_DRIFT_PER_SECOND = 0.01;
/** Operations remembered per organization (the API has 97). */
const MAX_OPERATIONS = 128;
