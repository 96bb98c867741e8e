/**
 * Waits before each attempt, index i = wait before attempt i+1: attempt 1 immediately, then
 * 5 min, 30 min, 2 h, 8 h. After attempt 5 fails the delivery is failed. Configurable (tests pass
 * millisecond schedules); the length of the array is the maximum number of attempts.
 */
export const DEFAULT_SCHEDULE_MS: readonly number[] = Object.freeze([0, 5 * 60e3, 30 * 60e3, 2 * 3600e3, 8 * 3600e3]);

/** ±10 %: spreads retries of many deliveries that failed together (receiver outage) over time. */
export const JITTER_RATIO = 0.1;

/**
 * Upper bound for a receiver-supplied Retry-After. Without it one response could park a delivery
 * for months (or a bogus date could overflow timers).
 */
export const MAX_RETRY_AFTER_MS = 24 * 3600e3;

/** Statuses for which Retry-After is meaningful (RFC 9110: 503, and RFC 6585: 429). */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** 410 Gone: the receiver says the endpoint no longer exists; the caller pauses the subscription. */
export const GONE_STATUS = 410;

export function shouldPauseSubscription(statusCode: number | null | undefined): boolean {
  return statusCode === GONE_STATUS;
}

/**
 * Parses a Retry-After value (RFC 9110 §10.2.3): either delay-seconds (digits only) or an
 * HTTP-date. Returns the delay in ms from `now` (never negative), or null when absent/invalid.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed.length === 0) return null;
  if (/^\d+$/.test(trimmed)) {
    const seconds = Number(trimmed);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : null;
  }
  // Anything else must be a date. Bare numbers with signs/decimals ("-5", "1.5") are rejected
  // above; Date.parse would otherwise accept some of them as years.
  if (/^[+-]?[\d.]+$/.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

export interface NextAttemptDelayInput {
  /** The attempt that just failed, 1-based. */
  attempt: number;
  scheduleMs?: readonly number[];
  /** Raw Retry-After header of the failed response, if any. */
  retryAfterHeader?: string | null;
  /** HTTP status of the failed response (null for timeouts / connection errors). */
  statusCode?: number | null;
  /** Injectable randomness in [0, 1) for tests. */
  random?: () => number;
  /** Current time in ms since epoch (only used to turn a Retry-After date into a delay). */
  now?: number;
}

/**
 * Delay in ms before the next attempt, or null when no further attempt should be made (schedule
 * exhausted, or 410 Gone which pauses the subscription instead of retrying).
 *
 * Retry-After policy (decision): on 429/503 we wait max(jittered schedule wait, Retry-After), with
 * the Retry-After part capped at MAX_RETRY_AFTER_MS. Never retrying EARLIER than the schedule
 * keeps the documented schedule a guarantee to receivers and stops a receiver from forcing a
 * tight retry loop with "Retry-After: 0"; honouring a longer value respects the receiver's
 * back-pressure; the cap bounds how long one response can hold a delivery. The cap does not
 * shorten a (configured) schedule wait that is itself longer than the cap.
 * Retry-After does not add attempts: the schedule length still bounds the number of attempts.
 */
export function nextAttemptDelay(input: NextAttemptDelayInput): number | null {
  const scheduleMs = input.scheduleMs ?? DEFAULT_SCHEDULE_MS;
  const random = input.random ?? Math.random;
  const { attempt } = input;
  if (!Number.isInteger(attempt) || attempt < 1) throw new Error('attempt must be a 1-based integer');
  if (shouldPauseSubscription(input.statusCode)) return null;

  // scheduleMs[attempt] is the wait before attempt + 1 (0-based array, 1-based attempts).
  const baseWait = scheduleMs[attempt];
  if (baseWait === undefined) return null;
  if (!Number.isFinite(baseWait) || baseWait < 0) throw new Error(`Invalid retry schedule entry: ${String(baseWait)}`);

  // Symmetric jitter in [-10 %, +10 %). A zero wait stays zero (an immediate attempt stays immediate).
  const jittered = Math.round(baseWait * (1 + (random() * 2 - 1) * JITTER_RATIO));

  if (input.statusCode !== null && input.statusCode !== undefined && RETRY_AFTER_STATUSES.has(input.statusCode)) {
    const retryAfter = parseRetryAfter(input.retryAfterHeader, input.now ?? Date.now());
    if (retryAfter !== null) return Math.max(jittered, Math.min(retryAfter, MAX_RETRY_AFTER_MS));
  }
  return jittered;
}
