import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebhookDeps } from '../domain/deps';
import type { DeliveryDispatcher } from './delivery-dispatcher';
import { DueScanner } from './due-scanner';

const IDLE_CHECK_MS = 10_000;

/** A scanner over a store with nothing due: it counts the claims, the scanner's only way to find work. */
function idleScanner() {
  const claimDue = vi.fn(async () => []);
  const nextWakeAt = vi.fn(async () => null);
  const deps = {
    deliveries: { claimDue, nextWakeAt },
    now: () => new Date(),
    settings: { leaseMs: 60_000 },
    owner: 'test',
    logger: { error: vi.fn() },
  } as unknown as WebhookDeps;
  const dispatcher = { room: () => 100, busyEndpoints: () => [], accept: vi.fn() } as unknown as DeliveryDispatcher;
  return { scanner: new DueScanner(deps, dispatcher, IDLE_CHECK_MS), claimDue };
}

describe('DueScanner', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sleeps no longer than a retry stored meanwhile, and makes no query before it is due', async () => {
    const { scanner, claimDue } = idleScanner();
    scanner.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(claimDue).toHaveBeenCalledTimes(1);

    scanner.retryAt(new Date(Date.now() + 2_000));
    await vi.advanceTimersByTimeAsync(1_990);
    expect(claimDue).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(claimDue).toHaveBeenCalledTimes(2);
    await scanner.stop();
  });

  it('is not woken by a retry due after its next look (a failing endpoint costs no query per failure)', async () => {
    const { scanner, claimDue } = idleScanner();
    scanner.start();
    await vi.advanceTimersByTimeAsync(10);
    for (let i = 0; i < 100; i++) scanner.retryAt(new Date(Date.now() + 300_000));
    await vi.advanceTimersByTimeAsync(IDLE_CHECK_MS - 100);
    expect(claimDue).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(claimDue).toHaveBeenCalledTimes(2);
    await scanner.stop();
  });

  it('is woken at once by a nudge (room in the queue, held deliveries resumed)', async () => {
    const { scanner, claimDue } = idleScanner();
    scanner.start();
    await vi.advanceTimersByTimeAsync(10);
    scanner.nudge();
    await vi.advanceTimersByTimeAsync(1);
    expect(claimDue).toHaveBeenCalledTimes(2);
    await scanner.stop();
  });
});
