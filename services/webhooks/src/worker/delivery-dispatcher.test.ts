import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deliveryRecord, webhookRecord } from '../../../../test/support/webhook-records';
import { parseAllowList } from '../delivery/address-guard';
import { closeConnections } from '../delivery/connection-pool';
import type { AttemptResult } from '../domain/attempt-result';
import type { WebhookDeps } from '../domain/deps';
import { newDelivery } from '../domain/event-body';
import { UnstoredPart } from '../domain/unstored-part';
import type { DeliveryRecord } from '../repository/delivery.record';
import type { WebhookRecord } from '../repository/webhook.repository';
import { DeliveryDispatcher, type DispatcherLimits } from './delivery-dispatcher';

const SLOW_MS = 3_000;
const servers: Server[] = [];

afterEach(async () => {
  await closeConnections();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A loopback receiver: `/slow/…` answers after SLOW_MS, anything else at once; records when each request came. */
async function startReceiver() {
  const arrivals: Array<{ path: string; at: number }> = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const path = request.url ?? '';
      arrivals.push({ path, at: Date.now() });
      setTimeout(() => response.end('ok'), path.startsWith('/slow/') ? SLOW_MS : 0);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals };
}

/** Subscription `id` of `orgId`, delivering to `url` (its name is its id). */
const webhook = (id: string, orgId: string, url: string): WebhookRecord =>
  webhookRecord(orgId, { id, name: id, url, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });

/**
 * A dispatcher over fake stores (the attempts are really sent): what it sends, and when, is the subject. With
 * `recorder`, the attempts' records are stored when the test says so; `released` gets the ids given back.
 */
function dispatcherFor(
  webhooks: WebhookRecord[],
  limits: Partial<DispatcherLimits>,
  fakes: { recorder?: WebhookDeps['recorder']; released?: string[] } = {},
) {
  const byId = new Map(webhooks.map((record) => [record.id, record]));
  const deps = {
    owner: 'test',
    now: () => new Date(),
    logger: { error: vi.fn(), warn: vi.fn() },
    settings: { allowList: parseAllowList('127.0.0.1'), scheduleMs: [0], timeoutMs: 10_000, leaseMs: 60_000 },
    subscriptions: { get: async (_orgId: string, id: string) => byId.get(id), prime: () => undefined },
    recorder: fakes.recorder ?? { record: async () => undefined, flush: async () => undefined },
    deliveries: {
      releaseLeases: async (ids: string[]) => void fakes.released?.push(...ids),
      renewLeases: async () => undefined,
      hold: async () => undefined,
    },
  } as unknown as WebhookDeps;
  const all: DispatcherLimits = {
    concurrency: 128,
    endpointConcurrency: 8,
    orgConcurrency: 32,
    endpointQueue: 2_000,
    queue: 20_000,
    unrecorded: 20_000,
    slowAnswerMs: 100,
    maxInFlight: 1_024,
    ...limits,
  };
  return new DeliveryDispatcher(
    deps,
    all,
    () => undefined,
    () => undefined,
  );
}

const queue = (dispatcher: DeliveryDispatcher, record: WebhookRecord, count: number, trace?: Record<string, string>) =>
  dispatcher.accept(
    Array.from({ length: count }, (_, i) => ({
      delivery: newDelivery({
        webhook: record,
        eventId: `evt_${record.id}_${i}`,
        eventType: 'contact.created',
        body: '{}',
        now: new Date(),
        lease: { owner: 'test', until: new Date(Date.now() + 60_000) },
        trace,
      }),
      webhook: record,
    })),
  );

describe('DeliveryDispatcher', () => {
  it("sends to an organization's fast subscription while its slow ones hold all of its slots", { timeout: 20_000 }, async () => {
    const receiver = await startReceiver();
    const slow = [1, 2, 3, 4].map((n) => webhook(`wh_slow${n}`, 'org_a', `${receiver.url}/slow/${n}`));
    const fast = webhook('wh_fast', 'org_a', `${receiver.url}/fast`);
    // 4 slow subscriptions × 2 attempts = the organization's 8 slots and the replica's 8.
    const dispatcher = dispatcherFor([...slow, fast], { endpointConcurrency: 2, orgConcurrency: 8, concurrency: 8 });
    for (const record of slow) queue(dispatcher, record, 5);
    await vi.waitFor(() => expect(receiver.arrivals.length).toBe(8), { timeout: 5_000 });
    const slowStartedAt = receiver.arrivals[0]!.at;

    queue(dispatcher, fast, 20);
    await vi.waitFor(() => expect(receiver.arrivals.filter(({ path }) => path === '/fast')).toHaveLength(20), { timeout: 10_000 });
    const lastFast = Math.max(...receiver.arrivals.filter(({ path }) => path === '/fast').map(({ at }) => at));
    // All 20 arrived before the slow receiver answered anything; the slow ones kept their 2 attempts each.
    expect(lastFast).toBeLessThan(slowStartedAt + SLOW_MS);
    expect(receiver.arrivals.filter(({ path, at }) => path.startsWith('/slow/') && at <= lastFast)).toHaveLength(8);
    await dispatcher.stop();
  });

  it('holds no more attempts in flight than maxInFlight, slow ones included', { timeout: 20_000 }, async () => {
    const receiver = await startReceiver();
    const slow = [1, 2, 3].map((n) => webhook(`wh_slow${n}`, `org_${n}`, `${receiver.url}/slow/${n}`));
    const dispatcher = dispatcherFor(slow, { endpointConcurrency: 4, maxInFlight: 6 });
    for (const record of slow) queue(dispatcher, record, 5);
    await vi.waitFor(() => expect(receiver.arrivals.length).toBe(6), { timeout: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.arrivals.length).toBe(6);
    await dispatcher.stop();
  });

  it(
    'starts no attempt while `unrecorded` attempts wait for the store, and goes on as their records are stored',
    { timeout: 20_000 },
    async () => {
      const receiver = await startReceiver();
      const record = webhook('wh_fast', 'org_a', `${receiver.url}/fast`);
      const stored: Array<() => void> = [];
      const recorder = {
        record: () => new Promise<void>((resolve) => stored.push(resolve)),
        flush: async () => undefined,
      } as unknown as WebhookDeps['recorder'];
      // One at a time: attempts in flight are bounded apart (maxInFlight), not counted here until answered.
      const dispatcher = dispatcherFor([record], { unrecorded: 5, concurrency: 1 }, { recorder });
      queue(dispatcher, record, 12);
      await vi.waitFor(() => expect(stored).toHaveLength(5), { timeout: 5_000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.arrivals).toHaveLength(5);
      // Two records stored: two more attempts, no more.
      for (const done of stored.splice(0, 2)) done();
      await vi.waitFor(() => expect(receiver.arrivals).toHaveLength(7), { timeout: 5_000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.arrivals).toHaveLength(7);
      for (const done of stored.splice(0)) done();
      await vi.waitFor(() => expect(receiver.arrivals).toHaveLength(12), { timeout: 5_000 });
      for (const done of stored.splice(0)) done();
      await dispatcher.stop();
    },
  );

  it('gives back what the fan-out hands it beyond the memory queue', { timeout: 20_000 }, async () => {
    const receiver = await startReceiver();
    const record = webhook('wh_slow', 'org_a', `${receiver.url}/slow/1`);
    const released: string[] = [];
    const dispatcher = dispatcherFor([record], { queue: 4, maxInFlight: 1 }, { released });
    queue(dispatcher, record, 10);
    // Four queued (one of them then in flight): the other six wait in the database, due.
    await vi.waitFor(() => expect(released).toHaveLength(6), { timeout: 5_000 });
    await vi.waitFor(() => expect(receiver.arrivals).toHaveLength(1), { timeout: 5_000 });
    expect(dispatcher.room()).toBe(1);
    await dispatcher.stop();
  });

  it(
    'sends a part before it is stored: answered attempts go into its insert, a refused delivery is stored due, a late answer is recorded after',
    { timeout: 20_000 },
    async () => {
      const receiver = await startReceiver();
      const fast = webhook('wh_fast', 'org_a', `${receiver.url}/fast`);
      const slow = webhook('wh_slow', 'org_a', `${receiver.url}/slow/1`);
      const calls: Array<{ how: 'record' | 'recordStored'; id: string }> = [];
      const recorder = {
        record: async (attempt: AttemptResult) => void calls.push({ how: 'record', id: attempt.delivery.id }),
        recordStored: async (attempt: AttemptResult) => void calls.push({ how: 'recordStored', id: attempt.delivery.id }),
        flush: async () => undefined,
      } as unknown as WebhookDeps['recorder'];
      const released: string[] = [];
      const dispatcher = dispatcherFor([fast, slow], { queue: 3 }, { recorder, released });
      const records = [fast, fast, slow, fast].map((record, i) =>
        deliveryRecord('org_a', record.id, { id: `dlv_${i}`, lease_owner: 'test', lease_until: new Date(Date.now() + 60_000) }),
      );
      const stored: DeliveryRecord[] = [];
      const part = new UnstoredPart(records, {
        store: async (rows) => void stored.push(...rows),
        leaseMs: 60_000,
        now: () => new Date(),
        // A quiet spell far longer than a loopback answer, far shorter than the slow receiver's: the same verdict on a busy machine.
        window: { quietMs: 1_000, maxMs: 5_000 },
      });
      dispatcher.accept(records.map((delivery) => ({ delivery, webhook: fast.id === delivery.webhook_id ? fast : slow, part })));
      await part.stored;
      const byId = new Map(stored.map((record) => [record.id, record]));
      expect(byId.get('dlv_0')).toMatchObject({ status: 'succeeded', attempt: 1, lease_owner: null });
      expect(byId.get('dlv_1')).toMatchObject({ status: 'succeeded', attempt: 1, lease_owner: null });
      // Still waiting for its slow receiver: stored leased, its attempt recorded like any other once answered.
      expect(byId.get('dlv_2')).toMatchObject({ status: 'pending', attempt: 0, lease_owner: 'test' });
      // Beyond the memory queue: stored due, for any replica, without a write of its own.
      expect(byId.get('dlv_3')).toMatchObject({ status: 'pending', attempt: 0, lease_owner: null, lease_until: null });
      expect(released).toEqual([]);
      await vi.waitFor(() => expect(calls).toHaveLength(3), { timeout: SLOW_MS + 5_000 });
      expect(calls).toEqual(
        expect.arrayContaining([
          { how: 'recordStored', id: 'dlv_0' },
          { how: 'recordStored', id: 'dlv_1' },
          { how: 'record', id: 'dlv_2' },
        ]),
      );
      await dispatcher.stop();
    },
  );

  it("records an attempt's span in the trace of the write that caused it, and none for an unsampled one", { timeout: 20_000 }, async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
    trace.setGlobalTracerProvider(provider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const receiver = await startReceiver();
      const record = webhook('wh_traced', 'org_a', `${receiver.url}/fast`);
      const dispatcher = dispatcherFor([record], {});
      const writeTrace = '0af7651916cd43dd8448eb211c80319c';
      queue(dispatcher, record, 1, { traceparent: `00-${writeTrace}-b7ad6b7169203331-01` });
      queue(dispatcher, record, 1, { traceparent: `00-${writeTrace}-b7ad6b7169203331-00` });
      queue(dispatcher, record, 1);
      await vi.waitFor(() => expect(receiver.arrivals).toHaveLength(3), { timeout: 5_000 });
      await dispatcher.stop();
      const spans = exporter.getFinishedSpans();
      expect(spans).toHaveLength(1);
      expect(spans[0]!.name).toBe('webhook.deliver');
      expect(spans[0]!.spanContext().traceId).toBe(writeTrace);
      expect(spans[0]!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      expect(spans[0]!.attributes).toMatchObject({ 'webhook.id': 'wh_traced', 'event.type': 'contact.created' });
    } finally {
      trace.disable();
      propagation.disable();
      context.disable();
      await provider.shutdown();
    }
  });
});
