import {
  createLogger,
  newEvent,
  outboxOnInsert,
  outboxOnUpdate,
  OutboxRelay,
  OutboxSignal,
  type EventBus,
  type OutgoingMessage,
} from '@crm/shared';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSystem } from '../support/system';

/** A bus that records what it was given and can hold a publish until released (a slow broker acknowledgement). */
function recordingBus() {
  const published: string[] = [];
  let hold: Promise<void> | undefined;
  let release = () => {};
  const state = { holding: false };
  return {
    published,
    get holding() {
      return state.holding;
    },
    holdNext() {
      hold = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
    bus: {
      async publish(_topic: string, messages: OutgoingMessage[]) {
        const waiting = hold;
        hold = undefined;
        if (waiting) {
          state.holding = true;
          await waiting;
        }
        published.push(...messages.map((message) => String(message.headers?.['event-id'])));
      },
    } as unknown as EventBus,
  };
}

const waitFor = async (what: string, predicate: () => boolean | Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/**
 * Two replicas' relays on one collection (the real store). The lease of one must not hide, until it would expire,
 * an event the other replica's writer appended meanwhile.
 */
describe('outbox relays of two replicas', () => {
  let mongo: MongoClient;
  let collection: Collection<Document>;
  beforeAll(async () => {
    mongo = await new MongoClient(testSystem().env.MONGODB_URI ?? '').connect();
    collection = mongo.db(`${testSystem().env.CRM_DB_NAME}_relay`).collection('records');
    await collection.deleteMany({});
  });
  afterAll(async () => {
    await mongo.db(`${testSystem().env.CRM_DB_NAME}_relay`).dropDatabase();
    await mongo.close();
  });

  it('publishes an event appended while the other replica held the record leased, long before the lease expires', async () => {
    const logger = createLogger('relay-test', 'silent');
    const a = recordingBus();
    const b = recordingBus();
    // Leases and idle checks far longer than the wait below: only a prompt second look can pass.
    // Each replica's own signal: a write of replica B wakes B's relay only.
    const [signalA, signalB] = [new OutboxSignal(), new OutboxSignal()];
    signalA.register(collection);
    signalB.register(collection);
    const options = { topic: 'unused', logger, leaseMs: 60_000, idleCheckMs: 60_000 };
    const relayA = new OutboxRelay({ ...options, outbox: signalA, bus: a.bus });
    const relayB = new OutboxRelay({ ...options, outbox: signalB, bus: b.bus });

    const first = newEvent('org_relay', 'contact.tag.added', { contact: { id: 'ct_relay', name: 'Relay' }, tag: 'first' });
    await collection.insertOne({ _id: 'ct_relay' as never, ...outboxOnInsert([first]) });
    a.holdNext();
    relayA.start();
    try {
      // Replica A leased the record and waits for the broker; replica B's writer appends and nudges its relay.
      await waitFor('the lease of replica A', () => a.holding, 5_000);
      relayB.start();
      const second = newEvent('org_relay', 'contact.tag.added', { contact: { id: 'ct_relay', name: 'Relay' }, tag: 'second' });
      await collection.updateOne({ _id: 'ct_relay' as never }, outboxOnUpdate([second]) as Document);
      signalB.written(collection.collectionName);
      await new Promise((resolve) => setTimeout(resolve, 200));
      a.release();

      await waitFor('both events published', () => [...a.published, ...b.published].includes(second.id), 5_000);
      expect([...a.published, ...b.published].sort()).toEqual([first.id, second.id].sort());
      const stored = () => collection.findOne({ _id: 'ct_relay' as never });
      await waitFor('the outbox acknowledged', async () => (await stored())?._outbox_pending === false, 5_000);
      expect((await stored())?._outbox).toEqual([]);
    } finally {
      await relayA.stop();
      await relayB.stop();
    }
  });
});
