import type { Collection, CommandStartedEvent, Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEvent, testStorage } from '../../../../test/support/integration';
import type { Storage } from '../mongo/storage';
import { OutboxClaims } from './outbox-claims';

/**
 * The relay claims and acknowledges records beside every writer, transactions included. On SecantusDB a
 * multi-document update waiting for a document an open transaction wrote deadlocked with that transaction's next
 * write to the same document (a merge writes each relinked deal twice): the relay's command and the transaction
 * never ended, and the requests behind them piled up until the server refused connections.
 */
describe('outbox claims beside a transaction that writes a record twice', () => {
  let storage: Storage;
  let records: Collection<Document>;
  const claims = new OutboxClaims('relay-a', 60_000);

  beforeAll(async () => {
    storage = await testStorage('outbox_claims', { requires: ['transactions'] });
    records = storage.connection.collection('records');
  });
  afterAll(() => storage.close());

  /** Runs `relayCommand` while a transaction holds `id` between its two writes of it; both must finish. */
  async function besideTwoWrites(id: string, relayCommand: () => Promise<unknown>) {
    const session = storage.connection.getClient().startSession();
    try {
      session.startTransaction();
      await records.updateOne({ _id: id as never }, { $inc: { edits: 1 } }, { session });
      const relay = relayCommand();
      // The relay's command now waits for the transaction; the transaction writes the record again and commits.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await records.updateOne({ _id: id as never }, { $inc: { edits: 1 } }, { session });
      await session.commitTransaction();
      return await relay;
    } finally {
      await session.endSession();
    }
  }

  it('acknowledges a record after the transaction commits, keeping both of its writes', async () => {
    const event = testEvent('org_a');
    const lease = { _outbox_lease_owner: 'relay-a', _outbox_lease_until: new Date(Date.now() + 60_000) };
    await records.insertOne({ _id: 'ack_1' as never, edits: 0, _outbox: [event], _outbox_pending: true, ...lease });
    await besideTwoWrites('ack_1', () => claims.acknowledge(records, [{ id: 'ack_1', entries: [event] }]));
    expect(await records.findOne({ _id: 'ack_1' as never })).toMatchObject({ edits: 2, _outbox: [], _outbox_pending: false });
  });

  it('leases a pending record of the sweep after the transaction commits', async () => {
    const event = testEvent('org_a');
    await records.insertOne({ _id: 'sweep_1' as never, edits: 0, _outbox: [event], _outbox_pending: true, _outbox_lease_until: null });
    const claimed = await besideTwoWrites('sweep_1', () => claims.pending(records, 10));
    expect(claimed).toEqual([{ id: 'sweep_1', entries: [expect.objectContaining({ id: event.id })] }]);
    expect(await records.findOne({ _id: 'sweep_1' as never })).toMatchObject({ edits: 2, _outbox_lease_owner: 'relay-a' });
  });

  it('claims, acknowledges and re-reads records with _id alone at the top of each filter (one plan: filter-routing.ts)', async () => {
    const sent: CommandStartedEvent[] = [];
    const watch = (event: CommandStartedEvent) => sent.push(event);
    const client = storage.connection.getClient();
    const event = testEvent('org_a');
    await records.insertOne({ _id: 'shape_1' as never, _outbox: [event], _outbox_pending: true, _outbox_lease_until: null });
    client.on('commandStarted', watch);
    try {
      const claimed = await claims.byIds(records, ['shape_1']);
      expect(claimed).toEqual([{ id: 'shape_1', entries: [expect.objectContaining({ id: event.id })] }]);
      await claims.acknowledge(records, claimed);
      expect(await claims.stillPending(records, claimed)).toEqual([]);
    } finally {
      client.off('commandStarted', watch);
    }
    const filters = sent.flatMap(({ command }) =>
      command.findAndModify
        ? [command.query]
        : command.update
          ? command.updates.map((u: Document) => u.q)
          : command.find
            ? [command.filter]
            : [],
    ) as Document[];
    expect(filters).toHaveLength(3);
    for (const filter of filters) expect(filter.$and?.[0]).toEqual({ _id: expect.anything() });
    expect(await records.findOne({ _id: 'shape_1' as never })).toMatchObject({ _outbox: [], _outbox_pending: false });
  });
});
