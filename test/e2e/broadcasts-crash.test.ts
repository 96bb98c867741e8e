import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedMessaging } from '../support/isolated-messaging';
import { phoneSeries } from '../support/broadcasts';
import { eventually } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';

const RECIPIENTS = 400;

/**
 * Two messaging replicas of their own send one broadcast from two numbers while each is SIGKILLed in turn in the
 * middle of sending and started again: the provider must receive every recipient exactly once.
 */
describe('broadcast sending survives SIGKILL of its replicas', () => {
  let org: TestOrg;
  let system: Awaited<ReturnType<typeof isolatedMessaging>>;

  beforeAll(async () => {
    org = await createTestOrg();
    // Moderate QR-code pace × 40 = 20 messages/s per number: about 10 s for the whole broadcast. The provider's
    // production timeout (5 s), not the shared tests' 1 s: this test is about crashes, and on a loaded machine the
    // simulator answered after more than 1 s, so sends were retried instead of progressing (80 sends took > 30 s).
    system = await isolatedMessaging({
      replicas: 2,
      name: 'bcrash',
      env: { BROADCAST_PACE_MULTIPLIER: '40', BROADCAST_LEASE_MS: '1500', PROVIDER_TIMEOUT_MS: '5000' },
    });
    await Promise.all(system.replicas.map((replica) => replica.start()));
    // A series, not random numbers: 400 random ones collided within the organization about once in 120 runs.
    const phone = phoneSeries();
    for (let i = 0; i < RECIPIENTS; i += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, RECIPIENTS - i) }, async (_, j) => {
          const response = await org.raw.post('/v1/contacts', { name: `Crash ${i + j}`, phone: phone(i + j), tags: ['crash'] });
          if (response.status !== 201) throw new Error(JSON.stringify(response.body));
        }),
      );
    }
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('sends every recipient exactly once through two kills and restarts', async () => {
    const [first, second] = system.replicas;
    if (!first || !second) throw new Error('two replicas expected');
    const numbers = [await system.addNumber(org.orgId, 'qrcode', 'QR one'), await system.addNumber(org.orgId, 'qrcode', 'QR two')];
    const broadcast = await first.client.createBroadcast({
      org_id: org.orgId,
      id: '',
      plan: 'pro',
      body: {
        name: 'Crash test',
        chatappInstanceIds: numbers.map((n) => n.id),
        audience: { type: 'tags', tags: ['crash'] },
        message: { type: 'text', content: 'Hello from the crash test' },
        settings: { sendProfile: 'moderate' },
      },
    });
    await first.client.launchBroadcast({ org_id: org.orgId, id: broadcast.id, plan: 'pro', body: {} });

    const sentCount = async () => (await system.sim<{ data: unknown[] }>('sent')).data.length;
    for (const [victim, atLeast] of [
      [first, RECIPIENTS * 0.2],
      [second, RECIPIENTS * 0.5],
    ] as const) {
      await eventually(`${atLeast} sends`, async () => (await sentCount()) >= atLeast, 30_000);
      await victim.kill();
      await victim.start();
    }

    const done = await eventually(
      'the broadcast to complete with every status callback',
      async () => {
        const current = await second.client.getBroadcast({ org_id: org.orgId, id: broadcast.id });
        return current.status === 'completed' && current.stats?.read === RECIPIENTS ? current : undefined;
      },
      60_000,
    );
    expect(done.stats).toEqual({ total: RECIPIENTS, sent: RECIPIENTS, delivered: RECIPIENTS, read: RECIPIENTS, failed: 0, excluded: 0 });

    const sent = await system.sim<{ data: Array<{ to: string; ref: string }>; replayed: number }>('sent');
    const perRecipient = new Map<string, number>();
    for (const send of sent.data) perRecipient.set(send.to, (perRecipient.get(send.to) ?? 0) + 1);
    expect(sent.data).toHaveLength(RECIPIENTS);
    expect(perRecipient.size).toBe(RECIPIENTS);
    expect([...perRecipient.values()].every((count) => count === 1)).toBe(true);
    // Both numbers sent their share (the lanes moved between replicas), and nothing else reached anyone.
    for (const number of numbers) expect(sent.data.filter((s) => s.ref === number.ref)).toHaveLength(RECIPIENTS / 2);
    console.log(`crash test: ${sent.data.length} sends, ${sent.replayed} repeated sends answered once by the provider`);
  }, 150_000);
});
