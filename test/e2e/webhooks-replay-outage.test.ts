import { createLogger, EventBus, kafkaSettings, newEvent, newId, toDomainEvent } from '@crm/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { testSystem } from '../support/system';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver';

/**
 * Issue 26's "done when": after a receiver outage of a whole hour, one replay of that hour delivers every missed
 * event exactly once. The hour is real event time: the events are published on the system's events topic as the
 * outbox relay publishes them, with created_at spread over the last hour (the platform's clock cannot be wound back),
 * and the webhook service consumes, stores and fans them out like any other. During the outage the receiver answers
 * 503: the first deliveries fail every attempt, the subscription pauses (WEBHOOK_PAUSE_AFTER_FAILURES), and the rest
 * of the hour's events are not queued for it at all — the events only a replay can bring back.
 */
const HOUR_MS = 3_600_000;
const SPACING_MS = 30_000;
/** One event every 30 s over the hour: 120. */
const IN_WINDOW = HOUR_MS / SPACING_MS;
/** The first events, fanned out while the subscription is still active: their failures pause it. */
const BEFORE_PAUSE = 3;

let org: TestOrg;
let receiver: Receiver;
let bus: EventBus;

beforeAll(async () => {
  org = await createTestOrg();
  receiver = await startReceiver({ status: 503 });
  bus = new EventBus({
    kafka: kafkaSettings(testSystem().env),
    clientId: 'replay-outage-test',
    logger: createLogger('replay-outage-test', 'silent'),
  });
});

afterAll(async () => {
  await bus?.close();
  await receiver?.close();
});

describe('a replay after a receiver outage of a whole hour', () => {
  it(
    'delivers every event of the hour the subscription missed exactly once, and nothing outside the hour',
    { timeout: 120_000 },
    async () => {
      const contact = { id: newId('contact'), name: 'Outage Olga' };
      const end = Date.now() - 60_000;
      const start = end - HOUR_MS;
      const tagged = (tag: string, at: number) => toDomainEvent(newEvent(org.orgId, 'contact.tag.added', { contact, tag }, new Date(at)));
      const publish = (events: ReturnType<typeof tagged>[]) =>
        bus.publish(
          testSystem().env.EVENTS_TOPIC ?? '',
          events.map((event) => ({
            key: event.org_id,
            value: JSON.stringify(event),
            headers: { 'event-type': event.type, 'event-id': event.id },
          })),
        );
      const hour = Array.from({ length: IN_WINDOW }, (_, index) => tagged(`hour-${index}`, start + index * SPACING_MS));
      const before = tagged('before', start - 5 * 60_000);
      const after = tagged('after', end + 10_000);

      // Stored before the subscription exists: only a replay that ignored its window could send it.
      await publish([before]);
      await eventually(async () => ((await org.raw.get(`/v1/events/${before.id}`)).status === 200 ? true : undefined), 30_000, 'stored');
      const created = await org.raw.post('/v1/webhooks', { name: 'outage', url: receiver.url, events: ['contact.tag.added'] });
      expect(created.status, created.text).toBe(201);
      const webhookId: string = created.body.data.id;

      // The outage: the first events fail every attempt and pause the subscription; the rest of the hour is not queued.
      await publish(hour.slice(0, BEFORE_PAUSE));
      await eventually(
        async () => ((await org.raw.get(`/v1/webhooks/${webhookId}`)).body.data.status === 'paused' ? true : undefined),
        30_000,
        'the subscription paused by the outage',
      );
      await publish([...hour.slice(BEFORE_PAUSE), after]);
      await eventually(
        async () => {
          const stored = await Promise.all([hour.at(-1)!, after].map((event) => org.raw.get(`/v1/events/${event.id}`)));
          return stored.every((answer) => answer.status === 200) ? true : undefined;
        },
        30_000,
        'the whole hour stored',
      );
      expect(receiver.received.every((request) => request.answered !== 200)).toBe(true);

      // The receiver is back: reactivate the subscription and replay the hour.
      receiver.answerWith({ status: 200 });
      const recovered = receiver.received.length;
      const reactivated = await org.raw.patch(`/v1/webhooks/${webhookId}`, { status: 'active' });
      expect(reactivated.status, reactivated.text).toBe(200);
      const replay = await org.raw.post(`/v1/webhooks/${webhookId}/replay`, {
        since: new Date(start).toISOString(),
        until: new Date(end).toISOString(),
      });
      expect(replay.status, replay.text).toBe(202);
      const done = await eventually(
        async () => {
          const current = await org.raw.get(`/v1/webhooks/${webhookId}/replays/${replay.body.data.id}`);
          return current.body.data.status === 'completed' ? current.body.data : undefined;
        },
        60_000,
        'the replay completed',
      );
      expect(done).toMatchObject({ matched: IN_WINDOW, delivered: IN_WINDOW, failed: 0 });

      // Every event of the hour arrived; those the pause kept from the subscription exactly once (the replay's
      // delivery), the first ones at most once more (their own delivery resumes with the subscription, at least once).
      const receipts = new Map<string, number>();
      for (const request of receiver.received.slice(recovered))
        if (request.answered === 200) receipts.set(request.event.id, (receipts.get(request.event.id) ?? 0) + 1);
      const missed = hour.slice(BEFORE_PAUSE).map((event) => receipts.get(event.id) ?? 0);
      expect(missed).toEqual(Array.from({ length: IN_WINDOW - BEFORE_PAUSE }, () => 1));
      for (const event of hour.slice(0, BEFORE_PAUSE)) expect(receipts.get(event.id)).toBeGreaterThanOrEqual(1);
      for (const event of hour.slice(0, BEFORE_PAUSE)) expect(receipts.get(event.id)).toBeLessThanOrEqual(2);
      expect(receipts.has(before.id)).toBe(false);
      expect(receipts.has(after.id)).toBe(false);

      // A replayed body is the stored event, exactly as webhooks deliver it (the receiver checked each against the
      // catalogue).
      const replayed = receiver.received.slice(recovered).filter((request) => request.event.data?.tag?.startsWith('hour-'));
      const sample = replayed.find((request) => request.event.id === hour[60]!.id)!;
      const { request_id: _requestId, ...stored } = (await org.raw.get(`/v1/events/${hour[60]!.id}`)).body.data;
      expect(JSON.parse(sample.body)).toEqual(stored);
      await receiver.waitFor(() => true);
    },
  );
});
