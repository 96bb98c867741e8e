import type { DeliveryRecord } from '../repository/delivery.record';
import type { AttemptResult } from './attempt-result';

/**
 * When a part stops waiting for its first attempts: once every delivery was answered, once none of its attempts
 * started or was answered for `quietMs` after the first one started (what is left waits for slow or busy
 * endpoints), and at the latest `maxMs` after it was handed to the dispatcher. The event batch's offset is committed
 * only after its parts are stored, so these bound how long a slow endpoint holds up the partition's next batch; a
 * backlog's part of 1,000 fast deliveries is sent in a few hundred milliseconds, an attempt starting or answered
 * every fraction of one. The quiet spell counts from the first start: a part queued behind the previous one's
 * attempts has not stalled.
 */
export interface StoreWindow {
  quietMs: number;
  maxMs: number;
}

export const STORE_WINDOW: StoreWindow = { quietMs: 25, maxMs: 1_000 };

/** How a delivery handed back unsent is stored: due for any replica, or held (its subscription is paused). */
export type PutBack = 'due' | 'held';

export interface UnstoredPartOptions {
  /** Stores the part's records in one round trip (those already stored by a racing replica are left out). */
  store: (records: DeliveryRecord[]) => Promise<unknown>;
  leaseMs: number;
  now: () => Date;
  window?: StoreWindow;
}

/**
 * New deliveries whose first attempt goes out before they are stored. A first attempt usually succeeds, and the
 * local store costs three times as much to insert a delivery, log its attempt and then update it as to insert it
 * once with its outcome (docs/performance.md, "Deliveries stored with their first attempt"). The part is stored in
 * one insert when its window closes: each delivery with its first attempt when it was answered by then, leased to
 * this replica while its attempt is still to come (recorded later like any other attempt), unleased when the
 * dispatcher handed it back. Nothing is lost by sending first: the event's offset is committed only once the part
 * is stored, so a crash before that reads the event again and sends it again (at least once, as ever); a re-read
 * event whose deliveries were stored is recognised before anything is sent (DeliveryRepository.notStored).
 */
export class UnstoredPart {
  private readonly waiting: Set<string>;
  private readonly answered = new Map<string, AttemptResult>();
  private readonly handedBack = new Map<string, PutBack>();
  private open = true;
  private readonly window: StoreWindow;
  /** When an attempt of the part last started or was answered (ms); the quiet spell counts from it. */
  private lastMove = 0;
  /**
   * One timer for the quiet spell, armed at the first move and moved on only when it fires: an attempt that starts
   * or is answered just notes the time (two timers reset per delivery were 2 % of the drain's CPU).
   */
  private quietTimer: NodeJS.Timeout | undefined;
  private readonly maxTimer: NodeJS.Timeout;
  private markClosed!: () => void;
  /** Resolves when the part stops taking first attempts: the fan-out may build its next part. */
  readonly closed = new Promise<void>((resolve) => (this.markClosed = resolve));
  /** Resolves once every delivery of the part is stored. */
  readonly stored: Promise<void>;

  constructor(
    readonly records: DeliveryRecord[],
    private readonly options: UnstoredPartOptions,
  ) {
    this.window = options.window ?? STORE_WINDOW;
    this.waiting = new Set(records.map((record) => record.id));
    this.maxTimer = setTimeout(() => this.close(), this.window.maxMs);
    this.stored = this.closed.then(() => this.storeAll());
    // Awaited by the fan-out (and by attempts that finish after the close); a failure is theirs to handle.
    this.stored.catch(() => undefined);
    if (this.waiting.size === 0) this.close();
  }

  /** A first attempt of the part started: the part is moving. */
  started(): void {
    if (this.open) this.moved();
  }

  /**
   * A first attempt of the part was answered. True when the part keeps its outcome and stores it with the
   * delivery; false when the part was already closed, and the attempt is to be recorded once the part is stored.
   */
  take(attempt: AttemptResult): boolean {
    if (!this.open || !this.waiting.delete(attempt.delivery.id)) return false;
    this.answered.set(attempt.delivery.id, attempt);
    this.settled();
    return true;
  }

  /** The dispatcher hands a delivery back unsent. False when the part was already closed: the database is to be told. */
  putBack(id: string, how: PutBack): boolean {
    if (!this.open || !this.waiting.delete(id)) return false;
    this.handedBack.set(id, how);
    this.settled();
    return true;
  }

  private settled(): void {
    if (this.waiting.size === 0) this.close();
    else this.moved();
  }

  private moved(): void {
    this.lastMove = Date.now();
    this.quietTimer ??= setTimeout(() => this.quietEnds(), this.window.quietMs);
  }

  private quietEnds(): void {
    this.quietTimer = undefined;
    const left = this.lastMove + this.window.quietMs - Date.now();
    if (left <= 0) this.close();
    else this.quietTimer = setTimeout(() => this.quietEnds(), left);
  }

  private close(): void {
    if (!this.open) return;
    this.open = false;
    clearTimeout(this.quietTimer);
    clearTimeout(this.maxTimer);
    this.markClosed();
  }

  private async storeAll(): Promise<void> {
    const leaseUntil = new Date(this.options.now().getTime() + this.options.leaseMs);
    await this.options.store(
      this.records.map((record) => {
        const attempt = this.answered.get(record.id);
        if (attempt) return withFirstAttempt(record, attempt);
        const how = this.handedBack.get(record.id);
        if (how === 'held') return { ...record, next_attempt_at: null, lease_until: null, lease_owner: null };
        if (how === 'due') return { ...record, lease_until: null, lease_owner: null };
        return { ...record, lease_until: leaseUntil };
      }),
    );
  }
}

/**
 * The delivery as the recorder would leave it after its first attempt, the attempt kept in the delivery itself
 * (the API shows such attempts before those of the attempt log: attempt-log.ts).
 */
function withFirstAttempt(record: DeliveryRecord, { outcome, headers }: AttemptResult): DeliveryRecord {
  const { attempt } = outcome;
  return {
    ...record,
    status: outcome.status,
    attempt: attempt.attempt,
    next_attempt_at: outcome.next_attempt_at,
    completed_at: outcome.completed_at,
    attempts: [attempt],
    response_status: attempt.response_status,
    response_excerpt: attempt.response_excerpt,
    error: attempt.error,
    duration_ms: attempt.duration_ms,
    request_headers: headers,
    lease_until: null,
    lease_owner: null,
  };
}
