import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deliveryRecord, sendResult } from '../../../../test/support/webhook-records';
import type { DeliveryRecord } from '../repository/delivery.record';
import type { WebhookRecord } from '../repository/webhook.repository';
import { planAttemptOutcome } from './attempt-outcome';
import type { AttemptResult } from './attempt-result';
import { UnstoredPart } from './unstored-part';

const now = new Date('2026-11-28T12:00:00.000Z');
const leaseMs = 60_000;
const window = { quietMs: 40, maxMs: 400 };

const delivery = (id: string): DeliveryRecord =>
  deliveryRecord('org_1', 'wh_1', {
    id,
    next_attempt_at: now,
    created_at: now,
    lease_owner: 'replica-1',
    lease_until: new Date(now.getTime() + 1_000),
  });

function answer(record: DeliveryRecord, statusCode: number): AttemptResult {
  const result = sendResult(statusCode, { durationMs: 4, responseExcerpt: statusCode < 300 ? 'ok' : 'busy' });
  const outcome = planAttemptOutcome({
    attempt: 1,
    result,
    startedAt: now,
    scheduleMs: [0, 30_000],
    retries: true,
    now,
    random: () => 0.5,
  });
  return {
    delivery: record,
    webhook: {} as WebhookRecord,
    trigger: 'event',
    headers: { 'webhook-id': record.id },
    result,
    outcome,
    at: now,
  };
}

/** A part over a store that keeps what it was given, and the time the store was called (ms after the start). */
function part(ids: string[]) {
  const started = Date.now();
  const stores: { records: DeliveryRecord[]; afterMs: number }[] = [];
  const records = ids.map(delivery);
  const unstored = new UnstoredPart(records, {
    store: async (rows) => void stores.push({ records: rows, afterMs: Date.now() - started }),
    leaseMs,
    now: () => now,
    window,
  });
  const stored = (id: string) => stores.flatMap((store) => store.records).find((record) => record.id === id);
  return { unstored, records, stores, stored };
}

describe('UnstoredPart', () => {
  // The window is timing: fake timers make each case exact whatever the machine's load.
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('stores every delivery once, each with its first attempt, as soon as the last one is answered', async () => {
    const { unstored, records, stores, stored } = part(['dlv_a', 'dlv_b']);
    expect(unstored.take(answer(records[0]!, 200))).toBe(true);
    expect(unstored.take(answer(records[1]!, 503))).toBe(true);
    await unstored.stored;
    expect(stores).toHaveLength(1);
    expect(stores[0]!.afterMs).toBe(0);
    expect(stored('dlv_a')).toMatchObject({
      status: 'succeeded',
      attempt: 1,
      attempts: [{ attempt: 1, response_status: 200, error: null, response_excerpt: 'ok' }],
      response_status: 200,
      completed_at: now,
      next_attempt_at: null,
      request_headers: { 'webhook-id': 'dlv_a' },
      lease_owner: null,
      lease_until: null,
    });
    // A first attempt that failed is stored due for its retry, for any replica to claim.
    expect(stored('dlv_b')).toMatchObject({ status: 'pending', attempt: 1, response_status: 503, error: 'http_503', lease_owner: null });
    expect(stored('dlv_b')!.next_attempt_at!.getTime()).toBeGreaterThan(now.getTime());
  });

  it('stores a delivery still unanswered after a quiet spell leased to this replica, and lets its answer be recorded later', async () => {
    const { unstored, records, stores, stored } = part(['dlv_a', 'dlv_slow']);
    unstored.started();
    unstored.started();
    await vi.advanceTimersByTimeAsync(30);
    expect(unstored.take(answer(records[0]!, 200))).toBe(true);
    // Quiet counts from the last answer.
    await vi.advanceTimersByTimeAsync(window.quietMs - 1);
    expect(stores).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await unstored.stored;
    expect(stores).toHaveLength(1);
    expect(stores[0]!.afterMs).toBe(30 + window.quietMs);
    expect(stored('dlv_slow')).toMatchObject({ status: 'pending', attempt: 0, attempts: [], lease_owner: 'replica-1' });
    // The lease counts from the store, not from when the record was built.
    expect(stored('dlv_slow')!.lease_until).toEqual(new Date(now.getTime() + leaseMs));
    expect(unstored.take(answer(records[1]!, 200))).toBe(false);
  });

  it('waits for its first attempt to start (queued behind another part), then for a quiet spell', async () => {
    const { unstored, stores } = part(['dlv_a']);
    await vi.advanceTimersByTimeAsync(window.quietMs * 3);
    expect(stores).toHaveLength(0);
    unstored.started();
    await vi.advanceTimersByTimeAsync(window.quietMs);
    await unstored.stored;
    expect(stores[0]!.afterMs).toBe(window.quietMs * 4);
  });

  it('keeps waiting while answers keep coming, and stops at the latest after maxMs', async () => {
    const ids = Array.from({ length: 30 }, (_, index) => `dlv_${index}`);
    const { unstored, records, stores } = part(ids);
    let taken = 0;
    // An answer every 20 ms (within quietMs of the previous one): only maxMs closes the part.
    const answering = setInterval(() => {
      if (unstored.take(answer(records[taken]!, 200))) taken++;
    }, 20);
    await vi.advanceTimersByTimeAsync(window.maxMs);
    await unstored.stored;
    clearInterval(answering);
    expect(stores[0]!.afterMs).toBe(window.maxMs);
    expect(taken).toBe(window.maxMs / 20 - 1);
    expect(stores[0]!.records.filter((record) => record.status === 'succeeded')).toHaveLength(taken);
  });

  it('stores deliveries handed back unsent: due ones unleased, held ones never due', async () => {
    const { unstored, stored } = part(['dlv_due', 'dlv_held']);
    expect(unstored.putBack('dlv_due', 'due')).toBe(true);
    expect(unstored.putBack('dlv_held', 'held')).toBe(true);
    await unstored.stored;
    expect(stored('dlv_due')).toMatchObject({ status: 'pending', attempt: 0, next_attempt_at: now, lease_owner: null, lease_until: null });
    expect(stored('dlv_held')).toMatchObject({ status: 'pending', next_attempt_at: null, lease_owner: null, lease_until: null });
    expect(unstored.putBack('dlv_due', 'due')).toBe(false);
  });
});
