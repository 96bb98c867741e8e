import { Schema } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { uniqueName } from '../../../../test/support/integration';
import type { EventBus, OutgoingMessage } from '../kafka/event-bus';
import { createLogger } from '../logger';
import { connectStorage, type Storage } from '../mongo/storage';
import { RecordStore } from '../mongo/record-store';
import { newEvent, type OutboxEntry } from './domain-event';
import { OutboxRelay, type OutboxRelayOptions } from './outbox-relay';

interface Note {
  id: string;
  org_id: string;
  text: string;
}

/** One replica: its own connection to the shared database, its own signal, records and relay. */
async function replica(dbName: string) {
  const storage: Storage = await connectStorage(inject('integration').MONGODB_URI, dbName);
  const notes = new RecordStore<Note>(storage, {
    model: 'Note',
    schema: new Schema({ _id: String, org_id: String, text: String }, { versionKey: false, collection: 'notes' }),
    what: 'note',
    outbox: true,
  });
  await notes.model.init();
  return { storage, notes };
}

/** A bus shared by the replicas' relays: what reached "Kafka", in the order the publishes were acknowledged. */
function sharedLog() {
  const published: string[] = [];
  const bus = (hang = false) =>
    ({
      async publish(_topic: string, messages: OutgoingMessage[]) {
        // A relay that died after its write: its publishes never complete.
        if (hang) await new Promise(() => undefined);
        published.push(...messages.map((message) => String(message.headers?.['event-id'])));
      },
    }) as unknown as EventBus;
  return { published, bus };
}

const event = (note: string, step: number): OutboxEntry =>
  newEvent('org_replicas', 'contact.tag.added', { contact: { id: note, name: 'Note' }, tag: `step-${step}` });

/**
 * Two replicas write the same records and run a relay each (the real store): each write hands its record to its
 * own relay (inserts leased at the write, updates leased by id), and a record leased by one relay may get entries
 * appended by the other replica. Every event must be published, once each without a crash, in its record's order.
 */
describe('outbox relays of two replicas writing the same records', () => {
  const logger = createLogger('relay-test', 'silent');
  const options = { topic: 'unused', logger, idleCheckMs: 60_000 } satisfies Partial<OutboxRelayOptions>;
  let a: Awaited<ReturnType<typeof replica>>;
  let b: Awaited<ReturnType<typeof replica>>;
  beforeAll(async () => {
    const dbName = uniqueName('relays');
    [a, b] = await Promise.all([replica(dbName), replica(dbName)]);
  });
  afterAll(async () => {
    await a.storage.connection.db?.dropDatabase();
    await Promise.all([a.storage.close(), b.storage.close()]);
  });

  it('publishes every event of records written through both replicas once, in each record order', async () => {
    const log = sharedLog();
    const relays = [a, b].map(({ storage }) => new OutboxRelay({ ...options, outbox: storage.outbox, bus: log.bus() }));
    relays.forEach((relay) => relay.start());
    const written = new Map<string, string[]>();
    try {
      // 20 records, created through either replica; each then changed 5 times, alternately through both, one
      // change after the other (so its events' order is known) while the other records change meanwhile.
      await Promise.all(
        Array.from({ length: 20 }, async (_, n) => {
          const id = `nt_${n}`;
          const events = [event(id, 0)];
          await [a, b][n % 2]!.notes.insert({ id, org_id: 'org_replicas', text: 'v0' }, { events: [events[0]!] });
          for (let step = 1; step <= 5; step++) {
            const change = event(id, step);
            events.push(change);
            await [a, b][(n + step) % 2]!.notes.update({ _id: id }, { text: `v${step}` }, { events: [change] });
          }
          written.set(
            id,
            events.map((entry) => entry.id),
          );
        }),
      );
      const all = [...written.values()].flat();
      const poll = { timeout: 15_000, interval: 20 };
      await expect.poll(() => all.filter((id) => !log.published.includes(id)), poll).toEqual([]);
      await expect.poll(() => a.notes.count({ _outbox_pending: true }), poll).toBe(0);

      expect(log.published).toHaveLength(all.length);
      for (const ids of written.values()) expect(log.published.filter((id) => ids.includes(id))).toEqual(ids);
    } finally {
      await Promise.all(relays.map((relay) => relay.stop()));
    }
  });

  it('publishes again, a second later, what a failed publish held', async () => {
    const published: string[] = [];
    let failures = 1;
    const bus = {
      async publish(_topic: string, messages: OutgoingMessage[]) {
        if (failures-- > 0) throw new Error('broker unavailable');
        published.push(...messages.map((message) => String(message.headers?.['event-id'])));
      },
    } as unknown as EventBus;
    const relay = new OutboxRelay({ ...options, outbox: a.storage.outbox, bus });
    relay.start();
    try {
      const events = Array.from({ length: 6 }, (_, n) => event(`nt_retry_${n}`, 0));
      for (const [n, entry] of events.entries())
        await a.notes.insert({ id: `nt_retry_${n}`, org_id: 'org_replicas', text: 'v0' }, { events: [entry] });
      await expect.poll(() => events.filter((entry) => !published.includes(entry.id)), { timeout: 10_000, interval: 20 }).toEqual([]);
      expect(published.filter((id) => events.some((entry) => entry.id === id))).toHaveLength(6);
    } finally {
      await relay.stop();
    }
  });

  it('publishes through the other replica what a relay that died after the writes had leased', async () => {
    const log = sharedLog();
    // Replica A's relay leases its inserts and never gets them to Kafka (its process froze); B's takes over once the leases expire.
    const dead = new OutboxRelay({ ...options, outbox: a.storage.outbox, bus: log.bus(true), leaseMs: 1_000 });
    const alive = new OutboxRelay({ ...options, outbox: b.storage.outbox, bus: log.bus(), leaseMs: 1_000, idleCheckMs: 500 });
    dead.start();
    alive.start();
    try {
      const events = Array.from({ length: 5 }, (_, n) => event(`nt_dead_${n}`, 0));
      await Promise.all(
        events.map((entry, n) => a.notes.insert({ id: `nt_dead_${n}`, org_id: 'org_replicas', text: 'v0' }, { events: [entry] })),
      );
      const leased = await a.notes.collection.countDocuments({ _outbox_lease_owner: dead.owner });
      expect(leased).toBe(5);
      await expect.poll(() => events.filter((entry) => !log.published.includes(entry.id)), { timeout: 10_000, interval: 20 }).toEqual([]);
      expect(log.published.filter((id) => events.some((entry) => entry.id === id))).toHaveLength(5);
    } finally {
      await alive.stop();
      void dead.stop();
    }
  });
});
