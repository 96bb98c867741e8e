import { type CommandStartedEvent, MongoClient, type Collection, type Document } from 'mongodb';
import { Schema } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testBus, testEvent, testStorage, uniqueName } from '../../../../test/support/integration';
import type { EventBus, OutgoingMessage } from '../kafka/event-bus';
import { kafkaFromEnv } from '../kafka/kafka-client';
import { createLogger } from '../logger';
import { RecordStore } from '../mongo/record-store';
import type { Storage } from '../mongo/storage';
import { newEvent } from './domain-event';
import { outboxOnInsert, outboxOnUpdate } from './outbox-fields';
import { OutboxRelay } from './outbox-relay';
import { OutboxSignal } from './outbox-signal';

/**
 * A write that carries events wakes the relay by itself (the storage kit signals it): with the relay's idle check
 * far beyond the test's time, an event reaches Kafka only if the write woke the relay.
 */
describe('outbox writes wake the relay', () => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await testStorage('outbox');
  });
  afterAll(() => storage.close());

  it('publishes the events of an insert and of an update to Kafka at once, without any nudge, claiming the updated record once', async () => {
    const notes = new RecordStore<{ id: string; org_id: string; text: string }>(storage, {
      model: 'Note',
      schema: new Schema({ _id: String, org_id: String, text: String }, { versionKey: false, collection: 'notes' }),
      what: 'note',
      outbox: true,
    });
    await notes.model.init();
    const { bus, topic } = await testBus('outbox');
    const relay = new OutboxRelay({ outbox: storage.outbox, bus, topic, logger: createLogger('relay', 'warn'), idleCheckMs: 600_000 });
    const consumer = kafkaFromEnv(inject('integration'), { clientId: 'outbox-relay-test' }).consumer({
      groupId: `${topic}-reader`,
      maxWaitTimeInMs: 100,
    });
    const received: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void received.push(String(message.headers?.['event-id'])) });
    // The update finds the record still leased to the relay (the insert leased it), so the relay claims it once,
    // after the acknowledgement of the insert's event — not also before, when the claim cannot succeed.
    let claims = 0;
    const countClaims = (event: CommandStartedEvent) => {
      const set = (event.command.update as { $set?: Document } | undefined)?.$set;
      if (event.command.findAndModify === 'notes' && set && Object.keys(set).join() === '_outbox_lease_until,_outbox_lease_owner') claims++;
    };
    relay.start();
    try {
      // The relay's first pass (every collection, at start) is over before the writes below.
      await new Promise((resolve) => setTimeout(resolve, 500));
      storage.connection.getClient().on('commandStarted', countClaims);
      const created = testEvent('org_a');
      await notes.insert({ id: 'nt_1', org_id: 'org_a', text: 'first' }, { events: [created] });
      const edited = testEvent('org_a');
      await notes.update({ _id: 'nt_1' }, { text: 'second' }, { events: [edited] });
      await expect.poll(() => received, { timeout: 15_000, interval: 50 }).toEqual(expect.arrayContaining([created.id, edited.id]));
      await expect
        .poll(async () => (await notes.collection.findOne({ _id: 'nt_1' as never }))?._outbox_pending, { timeout: 5_000 })
        .toBe(false);
      expect(claims).toBe(1);
    } finally {
      storage.connection.getClient().off('commandStarted', countClaims);
      await relay.stop();
      await consumer.disconnect();
      await bus.close();
    }
  });
});

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
    mongo = await new MongoClient(inject('integration').MONGODB_URI).connect();
    collection = mongo.db(uniqueName('relay')).collection('records');
  });
  afterAll(() => mongo.close());

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
      signalB.written({ collection: collection.collectionName, id: 'ct_relay' });
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

/** Acknowledging costs two round trips per collection: the records of several passes share them. */
describe('outbox acknowledgements', () => {
  let mongo: MongoClient;
  let collection: Collection<Document>;
  const updates: string[] = [];
  beforeAll(async () => {
    mongo = await new MongoClient(inject('integration').MONGODB_URI, { monitorCommands: true }).connect();
    collection = mongo.db(uniqueName('relay')).collection('records');
    mongo.on('commandStarted', (event) => {
      if (event.commandName === 'update' && event.command.update === collection.collectionName) updates.push(event.commandName);
    });
  });
  afterAll(() => mongo.close());

  it('acknowledges the records of several passes in one update, and every one of them', async () => {
    const recorder = recordingBus();
    const signal = new OutboxSignal();
    signal.register(collection);
    const relay = new OutboxRelay({
      topic: 'unused',
      logger: createLogger('relay-test', 'silent'),
      outbox: signal,
      bus: recorder.bus,
      idleCheckMs: 60_000,
      ackDelayMs: 1_000,
    });
    relay.start();
    try {
      // The start's sweep is over before the writes; then three writes, each published by a pass of its own.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const events = ['one', 'two', 'three'].map((tag) =>
        newEvent('org_ack', 'contact.tag.added', { contact: { id: 'ct', name: 'A' }, tag }),
      );
      for (const [i, event] of events.entries()) {
        // Inserted as the storage kit does: leased to this process's relay by the write itself.
        await collection.insertOne({ _id: `ct_ack_${i}` as never, ...outboxOnInsert([event], signal.leaseOnWrite()) });
        signal.written({ collection: collection.collectionName, id: `ct_ack_${i}`, leased: [event] });
        await waitFor(`event ${i} published`, () => recorder.published.includes(event.id), 5_000);
      }
      await waitFor('every record acknowledged', async () => (await collection.countDocuments({ _outbox_pending: true })) === 0, 5_000);
      expect(updates).toHaveLength(1);
    } finally {
      await relay.stop();
    }
  });
});
