import { describe, expect, it } from 'vitest';
import type { SendResult } from '../delivery/http-sender';
import { planAttemptOutcome } from './attempt-outcome';

const SCHEDULE = [0, 1_000, 2_000, 3_000, 4_000];
const now = new Date('2026-01-31T12:00:00.000Z');
const result = (overrides: Partial<SendResult>): SendResult => ({
  ok: false,
  statusCode: null,
  error: null,
  durationMs: 12,
  responseExcerpt: null,
  retryAfter: null,
  pauseSubscription: false,
  errorDetail: null,
  ...overrides,
});
const plan = (attempt: number, sent: Partial<SendResult>, retries = true) =>
  planAttemptOutcome({ attempt, result: result(sent), startedAt: now, scheduleMs: SCHEDULE, retries, now, random: () => 0.5 });

describe('planAttemptOutcome', () => {
  it('marks a 2xx as succeeded with no next attempt', () => {
    const outcome = plan(1, { ok: true, statusCode: 204 });
    expect(outcome).toMatchObject({ status: 'succeeded', next_attempt_at: null, completed_at: now, error: null, failureReason: null });
    expect(outcome.attempt).toMatchObject({ attempt: 1, response_status: 204, duration_ms: 12 });
  });

  it('schedules the next attempt on the schedule after a failure', () => {
    const outcome = plan(2, { statusCode: 500, error: 'http_500', responseExcerpt: 'boom' });
    expect(outcome).toMatchObject({ status: 'pending', error: 'http_500', failureReason: 'http_500', completed_at: null });
    expect(outcome.next_attempt_at?.getTime()).toBe(now.getTime() + 2_000);
  });

  it('fails after the last attempt of the schedule', () => {
    expect(plan(SCHEDULE.length, { error: 'timeout' })).toMatchObject({
      status: 'failed',
      next_attempt_at: null,
      completed_at: now,
      error: 'timeout',
    });
  });

  it('honours Retry-After on 429 by waiting longer, never shorter', () => {
    const outcome = plan(1, { statusCode: 429, error: 'http_429', retryAfter: '120' });
    expect(outcome.next_attempt_at?.getTime()).toBe(now.getTime() + 120_000);
  });

  it('stops at once and asks for a pause on 410 Gone', () => {
    expect(plan(1, { statusCode: 410, error: 'http_410', pauseSubscription: true })).toMatchObject({
      status: 'failed',
      pauseSubscription: true,
    });
  });

  it('never retries a test delivery', () => {
    expect(plan(1, { error: 'connection_error' }, false)).toMatchObject({ status: 'failed', next_attempt_at: null });
  });

  it('reports a target refused at delivery time as a connection error, with the reason kept for the subscription', () => {
    const outcome = plan(1, { error: 'blocked_address', errorDetail: 'Target host "x" resolves to 10.0.0.1, a private address' });
    expect(outcome.error).toBe('connection_error');
    expect(outcome.attempt.error).toBe('connection_error');
    expect(outcome.failureReason).toContain('blocked_address: Target host');
  });

  it('reports a refused redirect with its status, and says redirect_refused and where it pointed for the subscription', () => {
    const outcome = plan(1, {
      statusCode: 302,
      error: 'redirect_refused',
      errorDetail: '302 to http://10.0.0.1/; redirects are never followed',
    });
    expect(outcome).toMatchObject({ status: 'pending', error: 'http_302' });
    expect(outcome.attempt).toMatchObject({ error: 'http_302', response_status: 302 });
    expect(outcome.failureReason).toBe('redirect_refused: 302 to http://10.0.0.1/; redirects are never followed');
  });
});
