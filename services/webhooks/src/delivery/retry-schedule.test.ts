import { describe, it, expect } from 'vitest';
import { DEFAULT_SCHEDULE_MS, MAX_RETRY_AFTER_MS, nextAttemptDelay, parseRetryAfter, shouldPauseSubscription } from './retry-schedule';

const MIN = 60e3;
const HOUR = 3600e3;
const noJitter = (): number => 0.5; // random() = 0.5 → factor exactly 1
const lowest = (): number => 0; // factor 0.9
const highest = (): number => 0.999999; // factor just under 1.1

describe('DEFAULT_SCHEDULE_MS', () => {
  it('is immediate, 5 min, 30 min, 2 h, 8 h', () => {
    expect([...DEFAULT_SCHEDULE_MS]).toEqual([0, 5 * MIN, 30 * MIN, 2 * HOUR, 8 * HOUR]);
  });
});

describe('nextAttemptDelay', () => {
  it('follows the schedule and stops after attempt 5', () => {
    expect(nextAttemptDelay({ attempt: 1, random: noJitter })).toBe(5 * MIN);
    expect(nextAttemptDelay({ attempt: 2, random: noJitter })).toBe(30 * MIN);
    expect(nextAttemptDelay({ attempt: 3, random: noJitter })).toBe(2 * HOUR);
    expect(nextAttemptDelay({ attempt: 4, random: noJitter })).toBe(8 * HOUR);
    expect(nextAttemptDelay({ attempt: 5, random: noJitter })).toBeNull();
    expect(nextAttemptDelay({ attempt: 6, random: noJitter })).toBeNull();
  });

  it('keeps jitter within ±10 %', () => {
    expect(nextAttemptDelay({ attempt: 1, random: lowest })).toBe(0.9 * 5 * MIN);
    expect(nextAttemptDelay({ attempt: 1, random: highest })).toBeLessThanOrEqual(1.1 * 5 * MIN);
    expect(nextAttemptDelay({ attempt: 1, random: highest })).toBeGreaterThan(1.09 * 5 * MIN);
    for (let i = 0; i < 1000; i += 1) {
      const delay = nextAttemptDelay({ attempt: 2 });
      expect(delay).not.toBeNull();
      expect(delay).toBeGreaterThanOrEqual(0.9 * 30 * MIN);
      expect(delay).toBeLessThanOrEqual(1.1 * 30 * MIN);
    }
  });

  it('keeps a zero wait at zero and returns whole milliseconds', () => {
    expect(nextAttemptDelay({ attempt: 1, scheduleMs: [0, 0, 10], random: highest })).toBe(0);
    expect(Number.isInteger(nextAttemptDelay({ attempt: 2, scheduleMs: [0, 0, 10], random: () => 0.123 }))).toBe(true);
  });

  it('uses a custom millisecond schedule (its length bounds the attempts)', () => {
    const scheduleMs = [0, 10, 20];
    expect(nextAttemptDelay({ attempt: 1, scheduleMs, random: noJitter })).toBe(10);
    expect(nextAttemptDelay({ attempt: 2, scheduleMs, random: noJitter })).toBe(20);
    expect(nextAttemptDelay({ attempt: 3, scheduleMs, random: noJitter })).toBeNull();
  });

  it('honours a longer Retry-After on 429 and 503 (seconds)', () => {
    expect(nextAttemptDelay({ attempt: 1, statusCode: 429, retryAfterHeader: '3600', random: noJitter })).toBe(HOUR);
    expect(nextAttemptDelay({ attempt: 1, statusCode: 503, retryAfterHeader: '600', random: noJitter })).toBe(10 * MIN);
  });

  it('never retries earlier than the schedule because of Retry-After', () => {
    expect(nextAttemptDelay({ attempt: 1, statusCode: 429, retryAfterHeader: '0', random: noJitter })).toBe(5 * MIN);
    expect(nextAttemptDelay({ attempt: 1, statusCode: 503, retryAfterHeader: '60', random: noJitter })).toBe(5 * MIN);
  });

  it('honours an HTTP-date Retry-After relative to now', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(
      nextAttemptDelay({ attempt: 1, statusCode: 503, retryAfterHeader: 'Wed, 01 Jan 2025 03:00:00 GMT', now, random: noJitter }),
    ).toBe(3 * HOUR);
  });

  it('caps Retry-After at 24 h', () => {
    expect(nextAttemptDelay({ attempt: 1, statusCode: 429, retryAfterHeader: String(7 * 24 * 3600), random: noJitter })).toBe(
      MAX_RETRY_AFTER_MS,
    );
    // ...but the cap never shortens a configured schedule wait that is longer.
    expect(nextAttemptDelay({ attempt: 1, scheduleMs: [0, 48 * HOUR], statusCode: 429, retryAfterHeader: '1', random: noJitter })).toBe(
      48 * HOUR,
    );
  });

  it('ignores Retry-After on other statuses and when invalid', () => {
    expect(nextAttemptDelay({ attempt: 1, statusCode: 500, retryAfterHeader: '3600', random: noJitter })).toBe(5 * MIN);
    expect(nextAttemptDelay({ attempt: 1, statusCode: null, retryAfterHeader: '3600', random: noJitter })).toBe(5 * MIN);
    expect(nextAttemptDelay({ attempt: 1, statusCode: 429, retryAfterHeader: 'soon', random: noJitter })).toBe(5 * MIN);
  });

  it('stops retrying on 410 Gone (the subscription is paused instead)', () => {
    expect(nextAttemptDelay({ attempt: 1, statusCode: 410, random: noJitter })).toBeNull();
    expect(shouldPauseSubscription(410)).toBe(true);
    expect(shouldPauseSubscription(404)).toBe(false);
    expect(shouldPauseSubscription(null)).toBe(false);
  });

  it('rejects invalid attempts and schedules', () => {
    expect(() => nextAttemptDelay({ attempt: 0 })).toThrow();
    expect(() => nextAttemptDelay({ attempt: 1.5 })).toThrow();
    expect(() => nextAttemptDelay({ attempt: 1, scheduleMs: [0, -1] })).toThrow();
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('parses delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });
  it('parses HTTP dates and clamps past dates to 0', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
  });
  it('returns null for missing or invalid values', () => {
    for (const value of [null, undefined, '', '  ', '-5', '1.5', 'later', '1e3']) {
      expect(parseRetryAfter(value, now)).toBeNull();
    }
  });
});
