import type { mongo } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStorage } from '../../../../test/support/integration';
import { retryOnConflict, WriteConflict } from './conflicts';
import type { Storage } from './storage';

describe('a transaction that meets another transaction on the real database server', () => {
  let storage: Storage;
  let counters: mongo.Collection<{ _id: string; n: number }>;
  beforeAll(async () => {
    storage = await testStorage('transactions', { requires: ['transactions'] });
    counters = storage.connection.db!.collection('counters');
  });
  afterAll(() => storage.close());

  /** A transaction of another writer that has written `id` and stays open until `commit` is called. */
  async function holdOpen(id: string): Promise<{ commit: () => Promise<void> }> {
    const session = storage.connection.getClient().startSession();
    session.startTransaction();
    await counters.updateOne({ _id: id }, { $inc: { n: 1 } }, { session });
    return {
      commit: async () => {
        await session.commitTransaction();
        await session.endSession();
      },
    };
  }

  const increment = (id: string) => (session: mongo.ClientSession) => counters.updateOne({ _id: id }, { $inc: { n: 1 } }, { session });

  it('is tried once and answers WriteConflict (503) when the record is held, writing nothing', async () => {
    await counters.insertOne({ _id: 'held', n: 0 });
    const holder = await holdOpen('held');
    let attempts = 0;
    const failure = await storage
      .transaction(async (session) => {
        attempts++;
        await increment('held')(session);
      })
      .catch((error: unknown) => error);
    await holder.commit();
    expect(failure).toBeInstanceOf(WriteConflict);
    expect(failure).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(attempts).toBe(1);
    expect(await counters.findOne({ _id: 'held' })).toEqual({ _id: 'held', n: 1 });
  });

  it('runs again under the conflict policy, whole, until the other transaction has committed', async () => {
    await counters.insertOne({ _id: 'waited', n: 0 });
    const holder = await holdOpen('waited');
    let attempts = 0;
    await retryOnConflict(() =>
      storage.transaction(async (session) => {
        attempts++;
        // The other writer commits while the third attempt runs: that attempt finds the record free.
        if (attempts === 3) await holder.commit();
        await increment('waited')(session);
      }),
    );
    expect(attempts).toBe(3);
    expect(await counters.findOne({ _id: 'waited' })).toEqual({ _id: 'waited', n: 2 });
  });

  it('counts each of 20 concurrent transactions on one record once', async () => {
    await counters.insertOne({ _id: 'contended', n: 0 });
    await Promise.all(Array.from({ length: 20 }, () => retryOnConflict(() => storage.transaction(increment('contended')))));
    expect(await counters.findOne({ _id: 'contended' })).toEqual({ _id: 'contended', n: 20 });
  });
});
