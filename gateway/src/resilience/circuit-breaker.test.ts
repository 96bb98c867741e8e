import { status as GrpcStatus } from '@grpc/grpc-js';
import { AppError } from '@crm/shared/core';
import { withDeadline } from '@crm/shared/grpc';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type BreakerState } from './circuit-breaker';
import { asTenant } from './tenant-context';

function breaker() {
  let now = 1_000_000;
  const changes: BreakerState[] = [];
  const subject = new CircuitBreaker({
    failures: 3,
    windowMs: 10_000,
    cooldownMs: 5_000,
    minTimeoutBudgetMs: 1_000,
    now: () => now,
    onStateChange: (state) => changes.push(state),
  });
  return { subject, changes, advance: (ms: number) => (now += ms) };
}

const UNAVAILABLE = { code: GrpcStatus.UNAVAILABLE };
const TIMED_OUT = { code: GrpcStatus.DEADLINE_EXCEEDED };

/** Lets one call through (for `tenant`, with the request deadline `deadline` when given) and ends it with `error`. */
function callWith(subject: CircuitBreaker, error: unknown, tenant = 'org_a', deadline?: number): void {
  const settle = asTenant(tenant, () => withDeadline(deadline, async () => subject.admit()));
  void settle.then((done) => done(error));
}

/** Lets one call through and ends it as `unreachable` says. */
function call(subject: CircuitBreaker, unreachable: boolean): void {
  subject.admit()(unreachable ? UNAVAILABLE : undefined);
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
    const probe = subject.admit();
    expect(subject.current).toBe('half-open');
    // While the probe is out, every other call is still refused.
    expect(refusal(subject).details).toEqual({ retry_after_seconds: 1 });
    probe(undefined);
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
    const early = subject.admit();
    for (let i = 0; i < 3; i++) call(subject, true);
    early(undefined);
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

  it('does not open on one organization failing while another organization is answered', async () => {
    const { subject } = breaker();
    call(subject, false); // another organization ('' here) was answered just now
    for (let i = 0; i < 5; i++) callWith(subject, UNAVAILABLE, 'org_busy');
    await flush();
    expect(subject.current).toBe('closed');
    // Nor on a second one: the answer within the window shows the service serves.
    for (let i = 0; i < 3; i++) callWith(subject, UNAVAILABLE, 'org_other');
    await flush();
    expect(subject.current).toBe('closed');
  });

  it('opens when every organization fails, whoever they are', async () => {
    const { subject, advance } = breaker();
    call(subject, false);
    advance(10_001); // that success is older than the window
    for (let i = 0; i < 3; i++) callWith(subject, UNAVAILABLE, 'org_busy');
    await flush();
    expect(subject.current).toBe('open');
  });

  it('counts a timeout only when the call had a real budget, not the rest of a spent one', async () => {
    const { subject } = breaker();
    const now = 1_000_000;
    for (let i = 0; i < 5; i++) callWith(subject, TIMED_OUT, 'org_a', now + 300);
    await flush();
    expect(subject.current).toBe('closed');
    for (let i = 0; i < 3; i++) callWith(subject, TIMED_OUT, 'org_a', now + 5_000);
    await flush();
    expect(subject.current).toBe('open');
  });

  it('does not count an error the service answered with', async () => {
    const { subject } = breaker();
    for (let i = 0; i < 5; i++) callWith(subject, new AppError('NOT_FOUND'));
    await flush();
    expect(subject.current).toBe('closed');
  });
});

const flush = () => new Promise((resolve) => setImmediate(resolve));
