import { afterAll, describe, expect, it } from 'vitest';
import { isolatedWebhooks } from '../support/isolated-webhooks';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const SLOW_MS = 10_000;

const createContacts = async (org: TestOrg, count: number, name: string): Promise<string[]> => {
  const ids: string[] = [];
  for (let i = 0; i < count; i++)
    ids.push((await org.client.POST('/v1/contacts', { body: { name: `${name} ${i}` } })).data!.data.id as string);
  return ids;
};

describe('webhook delivery isolation', () => {
  it("delivers another organization's events while one organization's receiver takes 10 s per call", { timeout: 120_000 }, async () => {
    // Webhook replicas of their own with a timeout above the slow receiver's answer time: its calls hold their
    // connections for the full 10 s, as a slow serverless function does.
    const { replicas, dropDatabase } = await isolatedWebhooks({
      replicas: 1,
      name: 'isolation',
      env: { WEBHOOK_TIMEOUT_MS: String(SLOW_MS + 5_000), WEBHOOK_LEASE_MS: '60000', WEBHOOK_WORKER_CONCURRENCY: '32' },
    });
    const service = replicas[0]!;
    cleanups.push(() => dropDatabase());
    const running = await service.start();
    cleanups.push(() => running.stop());

    const slow: Receiver = await startReceiver({ status: 200, delayMs: SLOW_MS });
    const fast: Receiver = await startReceiver({ status: 200 });
    cleanups.push(
      () => slow.close(),
      () => fast.close(),
    );
    const [noisy, quiet] = await Promise.all([createTestOrg(), createTestOrg()]);
    const subscribe = (org: TestOrg, url: string) =>
      service.client.createWebhook({ org_id: org.orgId, id: '', body: { name: 'isolation', url, events: ['contact.created'] } });
    for (let i = 0; i < 3; i++) await subscribe(noisy, `${slow.url}/${i}`);
    await subscribe(quiet, fast.url);

    // Organization A's events: 3 × 20 deliveries to the slow receiver, more than the replica's 32 attempts in
    // flight, all due at once.
    await createContacts(noisy, 20, 'Noisy');
    await slow.waitFor((all) => all.length >= 3, 30_000);
    const slowStartedAt = Math.min(...slow.received.map((request) => request.receivedAt));

    // Organization B writes while every slow call is still unanswered.
    const quietIds = await createContacts(quiet, 10, 'Quiet');
    const delivered = await fast.waitFor(
      (all) => quietIds.every((id) => all.some((request) => request.event.data?.object?.id === id)),
      30_000,
    );
    const lastQuiet = Math.max(
      ...delivered.filter((request) => quietIds.includes(request.event.data?.object?.id)).map((r) => r.receivedAt),
    );

    // B's deliveries all arrived before the slow receiver could answer its first call: they did not wait for A's.
    expect(lastQuiet).toBeLessThan(slowStartedAt + SLOW_MS);
    // Meanwhile A's three subscriptions held at most their share: 8 calls in flight each (WEBHOOK_ENDPOINT_CONCURRENCY).
    expect(slow.received.filter((request) => request.receivedAt <= lastQuiet).length).toBeLessThanOrEqual(3 * 8);
  });

  it(
    "delivers an organization's fast subscription while its five other subscriptions take 10 s per call and two answer 500",
    { timeout: 120_000 },
    async () => {
      // Five slow subscriptions hold 5 × 8 attempts: more than the organization's 32 (and the replica's 32) slots.
      // An attempt unanswered after WEBHOOK_SLOW_ANSWER_MS gives those slots back, so the fast subscriptions of the
      // same organization and of another one are sent to at once.
      const { replicas, dropDatabase } = await isolatedWebhooks({
        replicas: 1,
        name: 'isolation-org',
        env: {
          WEBHOOK_TIMEOUT_MS: String(SLOW_MS + 5_000),
          WEBHOOK_LEASE_MS: '60000',
          WEBHOOK_WORKER_CONCURRENCY: '32',
          WEBHOOK_ORG_CONCURRENCY: '32',
          WEBHOOK_SLOW_ANSWER_MS: '200',
        },
      });
      const service = replicas[0]!;
      cleanups.push(() => dropDatabase());
      const running = await service.start();
      cleanups.push(() => running.stop());

      const slow: Receiver = await startReceiver({ status: 200, delayMs: SLOW_MS });
      const failing: Receiver = await startReceiver({ status: 500 });
      const fast: Receiver = await startReceiver({ status: 200 });
      cleanups.push(
        () => slow.close(),
        () => failing.close(),
        () => fast.close(),
      );
      const [noisy, quiet] = await Promise.all([createTestOrg(), createTestOrg()]);
      const subscribe = (org: TestOrg, url: string) =>
        service.client.createWebhook({ org_id: org.orgId, id: '', body: { name: 'isolation', url, events: ['contact.created'] } });
      for (let i = 0; i < 5; i++) await subscribe(noisy, `${slow.url}/${i}`);
      for (let i = 0; i < 2; i++) await subscribe(noisy, `${failing.url}/${i}`);
      await subscribe(noisy, `${fast.url}/noisy`);
      await subscribe(quiet, `${fast.url}/quiet`);

      // 5 × 20 deliveries to the slow receiver, all due at once; once they hold the organization's 32 slots, both
      // organizations write while every slow call is still unanswered.
      await createContacts(noisy, 20, 'Noisy');
      await slow.waitFor((all) => all.length >= 32, 30_000);
      const slowStartedAt = Math.min(...slow.received.map((request) => request.receivedAt));
      const written = [...(await createContacts(noisy, 10, 'Noisy later')), ...(await createContacts(quiet, 10, 'Quiet'))];
      const delivered = await fast.waitFor(
        (all) => written.every((id) => all.some((request) => request.event.data?.object?.id === id)),
        30_000,
      );
      const lastFast = Math.max(
        ...delivered.filter((request) => written.includes(request.event.data?.object?.id)).map((request) => request.receivedAt),
      );

      // Every fast delivery of both organizations arrived before the slow receiver answered its first call.
      expect(lastFast).toBeLessThan(slowStartedAt + SLOW_MS);
      // The failing subscriptions were tried meanwhile; the slow ones held at most 8 calls each.
      expect(failing.received.length).toBeGreaterThan(0);
      expect(slow.received.filter((request) => request.receivedAt <= lastFast).length).toBeLessThanOrEqual(5 * 8);
    },
  );
});
