import type { SendResult } from '../delivery/http-sender';
import { nextAttemptDelay } from '../delivery/retry-schedule';
import type { AttemptRecord, DeliveryStatus } from '../repository/delivery.repository';

export interface AttemptOutcome {
  status: DeliveryStatus;
  next_attempt_at: Date | null;
  completed_at: Date | null;
  /** Public error of the attempt: `timeout`, `connection_error` or `http_<status>` (catalogue §3). */
  error: string | null;
  attempt: AttemptRecord;
  /** For the subscription's last_failure_reason: the error, with the refused address spelled out. */
  failureReason: string | null;
  /** 410 Gone: the receiver says the endpoint is gone. */
  pauseSubscription: boolean;
}

export interface PlanInput {
  /** 1-based number of the attempt just made. */
  attempt: number;
  result: SendResult;
  startedAt: Date;
  scheduleMs: readonly number[];
  /** False for test deliveries: one attempt, reported, never retried. */
  retries: boolean;
  now: Date;
  random?: () => number;
}

/**
 * What an attempt's result means for its delivery: succeeded, failed for good, or pending until the next attempt
 * on the schedule (with jitter and Retry-After). Pure, so the rules are unit-tested without a receiver.
 */
export function planAttemptOutcome(input: PlanInput): AttemptOutcome {
  const { result, now } = input;
  const error = publicError(result);
  const attempt: AttemptRecord = {
    attempt: input.attempt,
    attempted_at: input.startedAt,
    response_status: result.statusCode,
    error,
    duration_ms: result.durationMs,
    response_excerpt: result.responseExcerpt,
  };
  const base = { error, attempt, pauseSubscription: result.pauseSubscription };
  if (result.ok) return { ...base, status: 'succeeded', next_attempt_at: null, completed_at: now, failureReason: null };

  const failureReason =
    result.error === 'blocked_address' || result.error === 'redirect_refused'
      ? `${result.error}: ${result.errorDetail ?? 'refused'}`
      : result.error;
  const delay = input.retries
    ? nextAttemptDelay({
        attempt: input.attempt,
        scheduleMs: input.scheduleMs,
        retryAfterHeader: result.retryAfter,
        statusCode: result.statusCode,
        random: input.random,
        now: now.getTime(),
      })
    : null;
  if (delay === null) return { ...base, status: 'failed', next_attempt_at: null, completed_at: now, failureReason };
  return { ...base, status: 'pending', next_attempt_at: new Date(now.getTime() + delay), completed_at: null, failureReason };
}

/**
 * The attempt's `error` in the documented vocabulary (timeout, connection_error, http_<status>). A target refused at
 * delivery time (DNS now points inside) is a connection error: the request never left. A refused redirect keeps its
 * status; the subscription's last_failure_reason says `redirect_refused` and where it pointed.
 */
function publicError(result: SendResult): string | null {
  if (result.error === 'blocked_address') return 'connection_error';
  if (result.error === 'redirect_refused') return `http_${String(result.statusCode)}`;
  return result.error;
}
