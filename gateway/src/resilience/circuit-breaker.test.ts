import { AppError } from '@crm/shared/core';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type BreakerState } from './circuit-breaker';

function breaker() {
  let now = 1_000_000;
  const changes: BreakerState[] = [];
  const subject = new CircuitBreaker({
    failures: 3,
    windowMs: 10_000,
    cooldownMs: 5_000,
    now: () => now,
    onStateChange: (state) => changes.push(state),
  });
  return { subject, changes, advance: (ms: number) => (now += ms) };
}

/** Lets one call through and ends it as `unreachable` says. */
function call(subject: CircuitBreaker, unreachable: boolean): void {
  subject.admit();
  subject.settle(unreachable);
}

function refusal(subject: CircuitBreaker): AppError {
  try {
    subject.admit();
  } catch (error) {
    return error as AppError;
  }
  throw new Error('the call was admitted');
}

describe('circuit breaker', () => {
  it('opens after N consecutive transport failures and then refuses at once with 503 and Retry-After', () => {
    const { subject, changes } = breaker();
    call(subject, true);
    call(subject, true);
    expect(subject.current).toBe('closed');
    call(subject, true);
    expect(subject.current).toBe('open');
    const error = refusal(subject);
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.httpStatus).toBe(503);
    expect(error.details).toEqual({ retry_after_seconds: 5 });
    expect(changes).toEqual(['open']);
  });

  it('forgets failures broken by a success, or spread wider than the window', () => {
    const { subject, advance } = breaker();
    call(subject, true);
    call(subject, true);
    call(subject, false);
    call(subject, true);
    call(subject, true);
    expect(subject.current).toBe('closed');
    advance(10_001);
    call(subject, true);
    expect(subject.current).toBe('closed');
    call(subject, true);
    call(subject, true);
    expect(subject.current).toBe('open');
  });

  it('lets one probe through after the cooldown; its success closes the breaker', () => {
    const { subject, changes, advance } = breaker();
    for (let i = 0; i < 3; i++) call(subject, true);
    advance(2_000);
    expect(refusal(subject).details).toEqual({ retry_after_seconds: 3 });
    advance(3_000);
    subject.admit();
    expect(subject.current).toBe('half-open');
    // While the probe is out, every other call is still refused.
    expect(refusal(subject).details).toEqual({ retry_after_seconds: 1 });
    subject.settle(false);
    expect(subject.current).toBe('closed');
    call(subject, false);
    expect(changes).toEqual(['open', 'half-open', 'closed']);
  });

  it('reopens for a whole cooldown when the probe fails', () => {
    const { subject, advance } = breaker();
    for (let i = 0; i < 3; i++) call(subject, true);
    advance(5_000);
    call(subject, true);
    expect(subject.current).toBe('open');
    expect(refusal(subject).details).toEqual({ retry_after_seconds: 5 });
  });

  it('ignores calls admitted before it opened that end while it is open', () => {
    const { subject } = breaker();
    subject.admit();
    for (let i = 0; i < 3; i++) call(subject, true);
    subject.settle(false);
    expect(subject.current).toBe('open');
  });

  it('lets another probe through when the first never settled', () => {
    const { subject, advance } = breaker();
    for (let i = 0; i < 3; i++) call(subject, true);
    advance(5_000);
    subject.admit();
    refusal(subject);
    advance(5_000);
    expect(() => subject.admit()).not.toThrow();
  });
});
