import { AppError, transportFailureOf } from '@crm/shared/core';
import { currentDeadline, type CallGuard } from '@crm/shared/grpc';
import { currentTenant } from './tenant-context';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  /** Consecutive transport failures (unreachable, or no answer before the deadline) that open the breaker. */
  failures: number;
  /** The failures must fall within this window; an older streak starts again. */
  windowMs: number;
  /** How long an open breaker refuses calls before letting one probe through. */
  cooldownMs: number;
  /**
   * A call that timed out with less time than this counts for nothing: its request had spent its budget waiting
   * (its organization's queue) or its own deadline was short, which says nothing about the service.
   */
  minTimeoutBudgetMs: number;
  onStateChange?: (state: BreakerState) => void;
  now?: () => number;
}

/** How one call ended, for the breaker: the service answered, failed to, or the call proves nothing. */
export type CallVerdict = 'answered' | 'failed' | 'neutral';

/**
 * A circuit breaker in front of one backing service. While the service does not answer, each request would hold
 * a connection and a slot for the whole request budget; once it has failed `failures` times in a row, calls
 * fail at once with 503 SERVICE_UNAVAILABLE and Retry-After for `cooldownMs`. Then one call goes through as a
 * probe (half-open): its success closes the breaker, its failure opens it for another cooldown.
 *
 * It opens on a failing service, not on a service one organization keeps busy: only transport failures count
 * (a service that answers an error of its own is up), a timeout counts only when the call had a real budget
 * (minTimeoutBudgetMs), and failures are counted per organization: one organization's streak opens the breaker
 * only while no other organization's call has succeeded within the window.
 */
export class CircuitBreaker implements CallGuard {
  private state: BreakerState = 'closed';
  private readonly streaks = new Map<string, { count: number; startedAt: number }>();
  private readonly lastSuccess = new Map<string, number>();
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

  admit(): (error: unknown) => void {
    const now = this.now();
    this.refuseWhileOpen(now);
    const tenant = currentTenant() ?? '';
    const deadline = currentDeadline();
    const budgetMs = deadline === undefined ? Infinity : deadline - now;
    return (error) => this.settle(this.verdictOf(error, budgetMs), tenant);
  }

  settle(verdict: CallVerdict, tenant = ''): void {
    if (verdict === 'neutral') return;
    const now = this.now();
    if (verdict === 'answered') return this.answered(tenant, now);
    if (this.state === 'half-open') return this.open(now);
    if (this.state === 'open') return;
    const streak = this.streaks.get(tenant);
    const fresh = !streak || now - streak.startedAt > this.options.windowMs;
    const current = fresh ? { count: 0, startedAt: now } : streak;
    current.count += 1;
    this.streaks.set(tenant, current);
    if (current.count >= this.options.failures && !this.othersAnsweredSince(tenant, now - this.options.windowMs)) this.open(now);
  }

  private refuseWhileOpen(now: number): void {
    if (this.state === 'closed') return;
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

  private verdictOf(error: unknown, budgetMs: number): CallVerdict {
    const failure = transportFailureOf(error);
    if (failure === undefined) return 'answered';
    if (failure === 'timed-out' && budgetMs < this.options.minTimeoutBudgetMs) return 'neutral';
    return 'failed';
  }

  private answered(tenant: string, now: number): void {
    this.streaks.delete(tenant);
    if (this.lastSuccess.size > 10_000) this.lastSuccess.clear();
    this.lastSuccess.set(tenant, now);
    // Calls admitted before the breaker opened may still end while it is open: they prove nothing about now.
    if (this.state !== 'open') this.close();
  }

  private othersAnsweredSince(tenant: string, since: number): boolean {
    for (const [other, at] of this.lastSuccess) if (other !== tenant && at >= since) return true;
    return false;
  }

  private retryAfterSeconds(now: number): number {
    const left = this.state === 'open' ? this.openedAt + this.options.cooldownMs - now : 0;
    return Math.max(1, Math.ceil(left / 1000));
  }

  private open(now: number): void {
    this.openedAt = now;
    this.probeSentAt = undefined;
    this.streaks.clear();
    this.lastSuccess.clear();
    this.moveTo('open');
  }

  private close(): void {
    this.probeSentAt = undefined;
    this.moveTo('closed');
  }

  private moveTo(state: BreakerState): void {
    if (state === this.state) return;
    this.state = state;
    this.options.onStateChange?.(state);
  }
}
