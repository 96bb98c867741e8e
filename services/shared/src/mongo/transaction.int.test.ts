import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { mongo } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStorage } from '../../../../test/support/integration';
import { WriteConflict } from './conflicts';
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

  /** crm_storage_write_conflicts_total by outcome while `work` runs (the counter operators alert on). */
  async function conflictsCounted(work: () => Promise<unknown>): Promise<Record<string, number>> {
    const exporter = new PrometheusExporter({ preventServerStart: true });
    const provider = new MeterProvider({ readers: [exporter] });
    metrics.setGlobalMeterProvider(provider);
    try {
      await work();
      const { resourceMetrics } = await exporter.collect();
      const counter = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((metric) => metric.descriptor.name === 'crm_storage_write_conflicts_total');
      return Object.fromEntries((counter?.dataPoints ?? []).map((point) => [String(point.attributes.outcome), Number(point.value)]));
    } finally {
      await provider.shutdown();
      metrics.disable();
    }
  }

  const increment = (id: string) => (session: mongo.ClientSession) => counters.updateOne({ _id: id }, { $inc: { n: 1 } }, { session });

  it('runs again, whole, until the other transaction has committed, and counts once', async () => {
    await counters.insertOne({ _id: 'waited', n: 0 });
    const holder = await holdOpen('waited');
    let attempts = 0;
    const counted = await conflictsCounted(() =>
      storage.transaction(async (session) => {
        attempts++;
        // The other writer commits while the third attempt runs: that attempt finds the record free.
        if (attempts === 3) await holder.commit();
        await increment('waited')(session);
      }),
    );
    expect(attempts).toBe(3);
    // Each rerun is a write conflict retried, as the operators' counter has always said of conditional writes.
    expect(counted).toEqual({ retried: 2 });
    expect(await counters.findOne({ _id: 'waited' })).toEqual({ _id: 'waited', n: 2 });
  });

  it('pauses between its attempts while the record is held, instead of asking the server again at once', async () => {
    await counters.insertOne({ _id: 'held', n: 0 });
    const holder = await holdOpen('held');
    const released = new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => holder.commit());
    let attempts = 0;
    await storage.transaction(async (session) => {
      attempts++;
      await increment('held')(session);
    });
    await released;
    // The driver's withTransaction made about 750 attempts in such a second (1,517 in 2 s); the pauses grow to 250 ms.
    expect(attempts).toBeGreaterThan(1);
    expect(attempts).toBeLessThan(60);
    expect(await counters.findOne({ _id: 'held' })).toEqual({ _id: 'held', n: 2 });
  });

  it('counts each of 20 concurrent transactions on one record once', async () => {
    await counters.insertOne({ _id: 'contended', n: 0 });
    await Promise.all(Array.from({ length: 20 }, () => storage.transaction(increment('contended'))));
    expect(await counters.findOne({ _id: 'contended' })).toEqual({ _id: 'contended', n: 20 });
  });

  it('leaves a conditional write that lost inside it to the caller, which must read again: tried once, nothing written', async () => {
    await counters.insertOne({ _id: 'stale', n: 0 });
    let attempts = 0;
    const failure = await storage
      .transaction(async (session) => {
        attempts++;
        await increment('stale')(session);
        throw new WriteConflict('counter');
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WriteConflict);
    expect(attempts).toBe(1);
    expect(await counters.findOne({ _id: 'stale' })).toEqual({ _id: 'stale', n: 0 });
  });
});
