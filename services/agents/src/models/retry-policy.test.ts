import { describe, expect, it } from 'vitest';
import { backoffDelay, isRetryableStatus, retryAfterMs, sleep } from './retry-policy';

describe('backoffDelay', () => {
  const options = (random: number) => ({ baseMs: 100, maxMs: 1_000, random: () => random });

  it('doubles per attempt, keeps half and jitters the other half, and caps', () => {
    expect([1, 2, 3].map((attempt) => backoffDelay(attempt, options(0)))).toEqual([50, 100, 200]);
    expect([1, 2, 3].map((attempt) => backoffDelay(attempt, options(0.999)))).toEqual([100, 200, 400]);
    expect(backoffDelay(10, options(0.5))).toBe(750);
  });
});

describe('retryAfterMs', () => {
  const headers = (init: Record<string, string>) => init;

  it('prefers retry-after-ms, then reads seconds or an HTTP date', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfterMs(headers({ 'retry-after': '2' }))).toBe(2_000);
    expect(retryAfterMs(headers({ 'retry-after': '0.5' }))).toBe(500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3_000);
    expect(retryAfterMs(headers({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(retryAfterMs(headers({}))).toBeNull();
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }))).toBeNull();
    expect(retryAfterMs(headers({ 'retry-after-ms': '-5' }))).toBeNull();
  });
});

describe('isRetryableStatus', () => {
  it('retries 429 and 5xx only', () => {
    expect([400, 401, 403, 404, 422, 429, 500, 502, 503].map(isRetryableStatus)).toEqual([
      false,
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
    ]);
  });
});

describe('sleep', () => {
  it('rejects with the reason as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await expect(sleep(10, controller.signal)).rejects.toThrow('stop');
    await expect(sleep(1)).resolves.toBeUndefined();
  });
});
