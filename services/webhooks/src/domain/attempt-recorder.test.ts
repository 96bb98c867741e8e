import { createLogger } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { sendResult } from '../../../../test/support/webhook-records';
import type { AttemptWrite } from '../repository/delivery-queue';
import type { DeliveryRecord, DeliveryRepository } from '../repository/delivery.repository';
import type { HealthChange, WebhookRecord, WebhookRepository } from '../repository/webhook.repository';
import type { AttemptResult } from './attempt-result';
import { planAttemptOutcome } from './attempt-outcome';
import { AttemptRecorder } from './attempt-recorder';

const at = new Date('2026-01-31T12:00:00.000Z');

function webhook(id: string): WebhookRecord {
  return { id, org_id: 'org_1', status: 'active', consecutive_failures: 0 } as WebhookRecord;
}

function attempt(webhookId: string, statusCode: number, options: { isTest?: boolean } = {}): AttemptResult {
  const result = sendResult(statusCode);
  const delivery = {
    id: `dlv_${Math.random()}`,
    org_id: 'org_1',
    webhook_id: webhookId,
    attempt: 0,
    is_test: options.isTest ?? false,
  } as DeliveryRecord;
  const outcome = planAttemptOutcome({ attempt: 1, result, startedAt: at, scheduleMs: [0, 1_000], retries: true, now: at });
  return { delivery, webhook: webhook(webhookId), trigger: 'event', headers: {}, result, outcome, at };
}

/** The recorder over in-memory stand-ins of its two repositories: what it writes, and the failure counts it keeps. */
function harness(pauseAfterFailures = 3) {
  const writes: AttemptWrite[][] = [];
  const health: HealthChange[][] = [];
  const failures = new Map<string, number>();
  const paused: string[] = [];
  const deliveries = {
    recordAttempts: async (_owner: string, batch: AttemptWrite[]) => {
      writes.push(batch);
      await new Promise((resolve) => setTimeout(resolve, 10));
      return batch.length;
    },
  } as unknown as DeliveryRepository;
  const webhooks = {
    applyHealth: async (changes: HealthChange[]) => {
      health.push(changes);
      for (const change of changes)
        failures.set(change.id, change.reset ? change.failures : (failures.get(change.id) ?? 0) + change.failures);
      return changes
        .filter((change) => change.failures > 0)
        .map((change) => ({ ...webhook(change.id), consecutive_failures: failures.get(change.id) ?? 0 }));
    },
    pauseIfActive: async (_orgId: string, id: string) => !paused.includes(id),
  } as unknown as WebhookRepository;
  const recorder = new AttemptRecorder({
    deliveries,
    webhooks,
    owner: 'replica-1',
    pauseAfterFailures,
    logger: createLogger('test', 'silent'),
    onPaused: (_orgId, id) => paused.push(id),
  });
  return { recorder, writes, health, failures, paused };
}

describe('AttemptRecorder', () => {
  it('stores the attempts that finish while a write is in progress together, in the order they came', async () => {
    const { recorder, writes } = harness();
    const first = recorder.record(attempt('wh_a', 200));
    await new Promise((resolve) => setTimeout(resolve, 7));
    // The first write is in progress now: these three wait for it and go in one write.
    const rest = [attempt('wh_a', 200), attempt('wh_b', 200), attempt('wh_b', 500)].map((a) => recorder.record(a));
    await Promise.all([first, ...rest]);
    expect(writes.map((batch) => batch.length)).toEqual([1, 3]);
    expect(writes[1]![2]).toMatchObject({ attemptsBefore: 0, status: 'pending', entry: { error: 'http_500' } });
  });

  it('resets the failure count on a success and counts the failures after it, per subscription', async () => {
    const { recorder, health } = harness(10);
    await Promise.all(
      [attempt('wh_a', 500), attempt('wh_a', 200), attempt('wh_a', 503), attempt('wh_a', 500)].map((a) => recorder.record(a)),
    );
    expect(health.flat()).toEqual([
      expect.objectContaining({ id: 'wh_a', reset: true, failures: 2, lastSuccessAt: at, lastFailureReason: 'http_500' }),
    ]);
  });

  it('pauses a subscription after the configured failures in a row, and at once on 410 Gone', async () => {
    const { recorder, paused } = harness(3);
    await Promise.all([attempt('wh_a', 500), attempt('wh_a', 500)].map((a) => recorder.record(a)));
    expect(paused).toEqual([]);
    await recorder.record(attempt('wh_a', 500));
    expect(paused).toEqual(['wh_a']);
    await recorder.record(attempt('wh_gone', 410));
    expect(paused).toEqual(['wh_a', 'wh_gone']);
  });

  it('leaves the monitoring fields alone for test sends', async () => {
    const { recorder, writes, health } = harness();
    await recorder.record(attempt('wh_a', 500, { isTest: true }));
    expect(writes.flat()).toHaveLength(1);
    expect(health).toEqual([]);
  });
});
