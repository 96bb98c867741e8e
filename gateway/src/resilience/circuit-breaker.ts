import { AppError } from '@crm/shared/core';
import { type CallGuard } from '@crm/shared/grpc';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  /** Consecutive transport failures (unreachable, or no answer before the deadline) that open the breaker. */
  failures: number;
  /** The failures must fall within this window; an older streak starts again. */
  windowMs: number;
  /** How long an open breaker refuses calls before letting one probe through. */
  cooldownMs: number;
  onStateChange?: (state: BreakerState) => void;
  now?: () => number;
}

/**
 * A circuit breaker in front of one backing service. While the service does not answer, each request would hold
 * a connection and a slot for the whole request budget; once it has failed `failures` times in a row, calls
 * fail at once with 503 SERVICE_UNAVAILABLE and Retry-After for `cooldownMs`. Then one call goes through as a
 * probe (half-open): its success closes the breaker, its failure opens it for another cooldown. Only transport
 * failures count: a service that answers an error of its own is up.
 */
export class CircuitBreaker implements CallGuard {
  private state: BreakerState = 'closed';
  private streak = 0;
  private streakStartedAt = 0;
  private openedAt = 0;
  /** When the half-open probe was let through; undefined while none is out. */
  private probeSentAt: number | undefined;
  private readonly now: () => number;

  constructor(private readonly options: BreakerOptions) {
    this.now = options.now ?? Date.now;
  }

  get current(): BreakerState {
    return this.state;
  }

  admit(): void {
    if (this.state === 'closed') return;
    const now = this.now();
    if (this.state === 'open' && now - this.openedAt >= this.options.cooldownMs) this.moveTo('half-open');
    // A probe that never settled (its caller gave up before sending) must not keep the breaker half-open forever.
    const probeLost = this.probeSentAt !== undefined && now - this.probeSentAt >= this.options.cooldownMs;
    if (this.state === 'half-open' && (this.probeSentAt === undefined || probeLost)) {
      this.probeSentAt = now;
      return;
    }
    throw new AppError('SERVICE_UNAVAILABLE', 'A backing service is failing; calls to it are paused. Retry after the indicated time.', {
      retry_after_seconds: this.retryAfterSeconds(now),
    });
  }

  settle(unreachable: boolean): void {
    if (!unreachable) {
      // Calls admitted before the breaker opened may still end while it is open: they prove nothing about now.
      if (this.state !== 'open') this.close();
      return;
    }
    const now = this.now();
    if (this.state === 'half-open') return this.open(now);
    if (this.state === 'open') return;
    if (this.streak === 0 || now - this.streakStartedAt > this.options.windowMs) {
      this.streak = 0;
      this.streakStartedAt = now;
    }
    this.streak += 1;
    if (this.streak >= this.options.failures) this.open(now);
  }

  private retryAfterSeconds(now: number): number {
    const left = this.state === 'open' ? this.openedAt + this.options.cooldownMs - now : 0;
    return Math.max(1, Math.ceil(left / 1000));
  }

  private open(now: number): void {
    this.openedAt = now;
    this.probeSentAt = undefined;
    this.streak = 0;
    this.moveTo('open');
  }

  private close(): void {
    this.streak = 0;
    this.probeSentAt = undefined;
    this.moveTo('closed');
  }

  private moveTo(state: BreakerState): void {
    if (state === this.state) return;
    this.state = state;
    this.options.onStateChange?.(state);
  }
}
