import {
  AppError,
  createLogger,
  EventBus,
  kafkaFromEnv,
  kafkaSettings,
  newEvent,
  newId,
  runConsumer,
  toDomainEvent,
  type ConsumedEvent,
  type EventConsumer,
} from '@crm/shared';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSystem } from '../support/system';

const logger = createLogger('consumer-kit-test', 'silent');

const ORG = newId('organization');
const CONTACT = newId('contact');

/** A tag event of the catalogue, as the outbox relay publishes it (value, key, the event-type header). */
function tagEvent(tag: string) {
  const event = toDomainEvent(newEvent(ORG, 'contact.tag.added', { contact: { id: CONTACT, name: 'Kit' }, tag }));
  return { key: event.org_id, value: JSON.stringify(event), headers: { 'event-type': event.type, 'event-id': event.id } };
}

async function readTopic(topic: string, count: number, timeoutMs = 20_000) {
  const kafka = kafkaFromEnv(testSystem().env, { clientId: 'kit-reader' });
  const consumer = kafka.consumer({ groupId: `kit-reader-${randomUUID()}`, maxWaitTimeInMs: 100 });
  const messages: Array<{ value: string; headers: Record<string, string> }> = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]));
      messages.push({ value: message.value?.toString('utf8') ?? '', headers });
    },
  });
  const deadline = Date.now() + timeoutMs;
  while (messages.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  await consumer.disconnect();
  return messages;
}

/**
 * The consumer kit (services/shared/src/kafka/event-consumer.ts) against the real broker, on a topic of its own:
 * typed events, retries, the dead-letter topic, commits only after the handler, graceful stop.
 */
describe('the consumer kit', () => {
  const topic = `${testSystem().env.EVENTS_TOPIC}.kit-${randomUUID().slice(0, 8)}`;
  const groupId = `kit-${randomUUID().slice(0, 8)}`;
  let bus: EventBus;
  const consumers: EventConsumer<'contact.tag.added'>[] = [];
  /** Tags of the events handled, each once: a batch retried runs its handler again (handlers are idempotent by id). */
  const handled: string[] = [];
  const handledIds = new Set<string>();
  const attempts = new Map<string, number>();
  /** While true, the store is "down" for the `outage` event: the handler fails with SERVICE_UNAVAILABLE. */
  let storeDown = false;

  const handle = async ({ event }: ConsumedEvent<'contact.tag.added'>) => {
    const { tag } = event.data;
    attempts.set(tag, (attempts.get(tag) ?? 0) + 1);
    if (tag === 'poison') throw new Error('this tag always breaks the handler');
    // Unavailable twice, then fine: retried until it recovers, never dead-lettered.
    if (tag === 'flaky' && (attempts.get(tag) ?? 0) <= 2) throw new AppError('SERVICE_UNAVAILABLE');
    if (tag === 'outage' && storeDown) throw new AppError('SERVICE_UNAVAILABLE');
    if (handledIds.has(event.id)) return;
    handledIds.add(event.id);
    handled.push(tag);
  };
  const start = async (options: { group?: string; topic?: string; commitIntervalMs?: number } = {}) => {
    const consumer = await runConsumer({
      bus,
      logger,
      groupId: options.group ?? groupId,
      commitIntervalMs: options.commitIntervalMs,
      topic: options.topic ?? topic,
      kinds: ['contact.tag.added'],
      initialDelayMs: 20,
      maxDelayMs: 100,
      handle: async (events) => {
        for (const consumed of events) await handle(consumed);
      },
    });
    consumers.push(consumer);
    return consumer;
  };
  const waitFor = async (what: string, done: () => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms; handled: ${handled.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeAll(async () => {
    bus = new EventBus({ kafka: kafkaSettings(testSystem().env), clientId: 'consumer-kit-test', logger });
    await bus.ensureTopic(topic, 1);
  });
  afterAll(async () => {
    for (const consumer of consumers) await consumer.stop().catch(() => undefined);
    await bus.close();
  });

  it(
    'dead-letters a poison event and an invalid message after bounded retries, retries an unavailable store until it recovers, and goes on',
    { timeout: 60_000 },
    async () => {
      const consumer = await start();
      await bus.publish(topic, [
        tagEvent('first'),
        tagEvent('poison'),
        { key: ORG, value: '{not json', headers: { 'event-type': 'contact.tag.added' } },
        tagEvent('flaky'),
        tagEvent('after'),
      ]);
      await waitFor('the events after the poison handled', () => handled.includes('after'));
      expect(handled).toEqual(['first', 'flaky', 'after']);
      // 5 tries in the batch, then 5 on its own: bounded, and the partition moved on.
      expect(attempts.get('poison')).toBe(10);
      expect(attempts.get('flaky')).toBe(3);

      const dead = await readTopic(`${topic}.dead-letter`, 2);
      expect(dead.map((message) => message.headers['dead-letter-reason']).sort()).toEqual(['failed', 'invalid']);
      const poison = dead.find((message) => message.headers['dead-letter-reason'] === 'failed')!;
      expect(JSON.parse(poison.value).data.tag).toBe('poison');
      expect(poison.headers).toMatchObject({ 'dead-letter-group': groupId, 'dead-letter-topic': topic, 'dead-letter-partition': '0' });
      expect(poison.headers['dead-letter-detail']).toContain('always breaks');
      await consumer.stop();
    },
  );

  it(
    'commits only after its handler succeeded: an event still failing at a stop is handled after the restart, the ones before it are not handled again',
    { timeout: 60_000 },
    async () => {
      storeDown = true;
      const consumer = await start();
      await bus.publish(topic, [tagEvent('outage')]);
      await waitFor('the outage retried', () => (attempts.get('outage') ?? 0) >= 3);
      // A stop cuts the retries short; nothing is committed for the event.
      await consumer.stop();
      expect(handled).not.toContain('outage');

      storeDown = false;
      const before = handled.length;
      await start();
      await waitFor('the event handled after the restart', () => handled.includes('outage'));
      await bus.publish(topic, [tagEvent('last')]);
      await waitFor('the next event', () => handled.includes('last'));
      // What the first consumer committed is not handled twice; the dead letters are not handled at all.
      expect(handled.slice(before)).toEqual(['outage', 'last']);
    },
  );

  it(
    'commits at most once per interval, and at a stop what it handled: the next consumer of the group reads none of it again',
    { timeout: 60_000 },
    async () => {
      const [own, group] = [`${topic}.commits`, `kit-commits-${randomUUID().slice(0, 8)}`];
      await bus.ensureTopic(own, 1);
      const admin = kafkaFromEnv(testSystem().env, { clientId: 'kit-offsets' }).admin();
      await admin.connect();
      const committed = async () => {
        const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [own] });
        return Number(offsets!.partitions[0]!.offset);
      };
      try {
        const consumer = await start({ group, topic: own, commitIntervalMs: 60_000 });
        const tags = Array.from({ length: 4 }, (_, index) => `batch-${index}-${randomUUID().slice(0, 4)}`);
        for (const tag of tags) {
          await bus.publish(own, [tagEvent(tag)]);
          await waitFor(`${tag} handled`, () => handled.includes(tag));
        }
        // The first batch was committed at once; the three after it wait for the interval.
        expect(await committed()).toBe(1);
        await consumer.stop();
        expect(await committed()).toBe(4);

        await start({ group, topic: own });
        const last = `after-${randomUUID().slice(0, 4)}`;
        await bus.publish(own, [tagEvent(last)]);
        await waitFor('the next event', () => handled.includes(last));
        // Each handled once: the restarted consumer began after the stop's commit.
        expect(tags.map((tag) => attempts.get(tag))).toEqual([1, 1, 1, 1]);
      } finally {
        await admin.disconnect();
      }
    },
  );
  it(
    'gathers a trickle of events into batches: a second fetch waits out gatherMs, so events that arrive meanwhile are handled together',
    { timeout: 60_000 },
    async () => {
      const own = `${topic}.gather`;
      await bus.ensureTopic(own, 1);
      const batches: string[][] = [];
      const consumer = await runConsumer({
        bus,
        logger,
        groupId: `kit-gather-${randomUUID().slice(0, 8)}`,
        topic: own,
        kinds: ['contact.tag.added'],
        gatherMs: 1_000,
        handle: async (events) => {
          batches.push(events.map(({ event }) => event.data.tag));
        },
      });
      consumers.push(consumer);
      await bus.publish(own, [tagEvent('alone')]);
      await waitFor('the first event', () => batches.length === 1);
      // Five events 50 ms apart, each its own produce request: within the 1 s the consumer waits before fetching again.
      const trickle = Array.from({ length: 5 }, (_, index) => `trickle-${index}`);
      for (const tag of trickle) {
        await bus.publish(own, [tagEvent(tag)]);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await waitFor('the trickle', () => batches.flat().length === 6);
      expect(batches[0]).toEqual(['alone']);
      // One batch, or two when a publish came after the wait (a slow machine): never one fetch per event.
      expect(batches.length).toBeLessThanOrEqual(3);
      expect(batches.slice(1).flat()).toEqual(trickle);
      await consumer.stop();
    },
  );
});
