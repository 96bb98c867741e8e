import { afterAll, describe, expect, it } from 'vitest';
import { isolatedWebhooks } from '../support/isolated-webhooks';
import { createTestOrg } from '../support/orgs';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver';

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('webhook service crash', () => {
  it('loses no event when killed (SIGKILL) mid-delivery and restarted; duplicates are counted', { timeout: 150_000 }, async () => {
    const org = await createTestOrg();
    const receiver: Receiver = await startReceiver({ status: 200 });
    cleanups.push(() => receiver.close());
    const { replicas, dropDatabase } = await isolatedWebhooks({ replicas: 1, name: 'crash' });
    const service = replicas[0]!;
    cleanups.push(() => dropDatabase());
    let running = await service.start();
    cleanups.push(() => running.stop());

    await service.client.createWebhook({
      org_id: org.orgId,
      id: '',
      body: { name: 'crash', url: receiver.url, events: ['contact.created'] },
    });
    // Warm-up: proves the consumer joined its group before the real load.
    await org.client.POST('/v1/contacts', { body: { name: 'Warm Up' } });
    await receiver.waitFor((all) => all.length >= 1, 60_000);
    const warmUps = receiver.received.length;

    // The receiver now holds every request open: deliveries are in flight when the process dies.
    receiver.answerWith({ status: 200, hold: true });
    const count = 20;
    const contactIds: string[] = [];
    for (let i = 0; i < count; i++)
      contactIds.push((await org.client.POST('/v1/contacts', { body: { name: `Crash ${i}` } })).data!.data.id as string);
    await receiver.waitFor((all) => all.length > warmUps, 10_000);
    running.child.kill('SIGKILL');
    await running.exited;
    const inFlightAtKill = receiver.received.length - warmUps;

    receiver.answerWith({ status: 200 });
    running = await service.start();

    const delivered = () =>
      new Set(receiver.received.filter((request) => request.answered === 200).map((request) => request.event.data?.object?.id as string));
    await eventually(
      async () => (contactIds.every((id) => delivered().has(id)) ? true : undefined),
      120_000,
      'every event delivered after the restart',
    );

    const requests = receiver.received.slice(warmUps).filter((request) => contactIds.includes(request.event.data?.object?.id));
    const duplicates = requests.length - count;
    console.log(
      `crash test: ${count} events, ${inFlightAtKill} requests in flight at SIGKILL, ${requests.length} requests in all, ${duplicates} duplicates`,
    );
    expect(duplicates).toBeGreaterThanOrEqual(0);
    // One delivery per event and subscription, whatever was re-consumed: the dedup key held.
    const webhook = (await service.client.listWebhooks({ org_id: org.orgId, page: { limit: 1, after: undefined } })).items[0]!;
    const log = await service.client.listDeliveries({
      org_id: org.orgId,
      webhook_id: webhook.id,
      page: { limit: 100, after: undefined },
      filter: {},
    });
    expect(log.items).toHaveLength(count + 1);
    expect(new Set(log.items.map((item) => item.event_id)).size).toBe(count + 1);
    // Every event id the receiver saw is stable: a duplicate carries the id of its first copy.
    const idsByContact = new Map<string, Set<string>>();
    for (const request of requests)
      idsByContact.set(request.event.data.object.id, (idsByContact.get(request.event.data.object.id) ?? new Set()).add(request.event.id));
    expect([...idsByContact.values()].every((ids) => ids.size === 1)).toBe(true);
  });
});
