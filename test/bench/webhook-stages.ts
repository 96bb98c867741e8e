import { kafkaFromEnv } from '@crm/shared';
import { MongoClient } from 'mongodb';
import type { Arrival } from './receiver';
import { percentile, round } from './stats';

/** p50 / p99 of one stage of write → received, in ms. */
export interface StageFigure {
  p50_ms: number;
  p99_ms: number;
}

/**
 * Where the time of one event went, from the timestamps the pipeline leaves behind (one clock: one machine):
 * the bench's POST → the event's created_at (gateway, crm, the write) → the Kafka record's timestamp (the outbox
 * relay's wake-up, claim and publish) → the delivery's created_at (broker, consumer fetch, subscriptions read) →
 * its first attempt's attempted_at (the read of deliveries already stored, the dispatcher's queue; the delivery is
 * stored after its first attempt: unstored-part.ts) → received (the HTTP POST).
 */
export interface WebhookStages {
  events: number;
  write: StageFigure;
  relay: StageFigure;
  consume: StageFigure;
  dispatch: StageFigure;
  http: StageFigure;
  /** The event built → received: every stage but the write (the gateway and the CRM), the event pipeline's share. */
  after_write: StageFigure;
}

interface Timeline {
  sent: number;
  created: number;
  published: number;
  stored: number;
  attempted: number;
  received: number;
}

const figure = (values: number[]): StageFigure => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return { p50_ms: round(percentile(sorted, 50)), p99_ms: round(percentile(sorted, 99)) };
};

/**
 * The stage breakdown of the first arrival of each event in `arrivals` whose write is in `sentAt` (by the created
 * record's id). Reads the deliveries from the webhooks database and the records' timestamps from the topic.
 */
export async function measureStages(
  env: NodeJS.ProcessEnv,
  arrivals: Arrival[],
  sentAt: Map<string, { at: number }>,
  /** Only the deliveries of these subscriptions (the isolation run's fast ones); all when absent. */
  webhookIds?: string[],
): Promise<WebhookStages> {
  const first = new Map<string, Arrival>();
  for (const arrival of arrivals) if (sentAt.has(arrival.objectId) && !first.has(arrival.eventId)) first.set(arrival.eventId, arrival);
  const ids = [...first.keys()];
  const [published, deliveries] = await Promise.all([recordTimes(env, new Set(ids)), deliveryTimes(env, ids, webhookIds)]);
  const timelines: Timeline[] = [];
  for (const [eventId, arrival] of first) {
    const delivery = deliveries.get(eventId);
    const time = published.get(eventId);
    if (!delivery || time === undefined) continue;
    timelines.push({
      sent: sentAt.get(arrival.objectId)?.at ?? NaN,
      created: arrival.createdAt,
      published: time,
      stored: delivery.created,
      attempted: delivery.attempted,
      received: arrival.at,
    });
  }
  return {
    events: timelines.length,
    write: figure(timelines.map((t) => t.created - t.sent)),
    relay: figure(timelines.map((t) => t.published - t.created)),
    consume: figure(timelines.map((t) => t.stored - t.published)),
    dispatch: figure(timelines.map((t) => t.attempted - t.stored)),
    http: figure(timelines.map((t) => t.received - t.attempted)),
    after_write: figure(timelines.map((t) => t.received - t.created)),
  };
}

/** The first delivery of each event (of `webhookIds` when given): when it was stored and when its first attempt started. */
async function deliveryTimes(env: NodeJS.ProcessEnv, eventIds: string[], webhookIds?: string[]) {
  const client = await new MongoClient(env.MONGODB_URI ?? '').connect();
  try {
    const db = client.db(env.WEBHOOKS_DB_NAME);
    const docs = await db
      .collection<{ _id: string; event_id: string; created_at: Date; attempts: { attempt: number; attempted_at: Date }[] }>('deliveries')
      .find(
        { event_id: { $in: eventIds }, ...(webhookIds ? { webhook_id: { $in: webhookIds } } : {}) },
        { projection: { event_id: 1, created_at: 1, attempts: 1 } },
      )
      .toArray();
    // A first attempt is in the delivery when it was answered before the delivery was stored, otherwise in the
    // attempt log (repository/attempt-log.ts).
    const firstAttempts = await db
      .collection<{ delivery_id: string; attempted_at: Date }>('delivery_attempts')
      .find({ delivery_id: { $in: docs.map((doc) => doc._id) }, attempt: 1 }, { projection: { delivery_id: 1, attempted_at: 1 } })
      .toArray();
    const attemptedAt = new Map(firstAttempts.map((entry) => [entry.delivery_id, entry.attempted_at.getTime()]));
    const times = new Map<string, { created: number; attempted: number }>();
    for (const doc of docs) {
      const attempted = doc.attempts[0]?.attempted_at.getTime() ?? attemptedAt.get(doc._id) ?? NaN;
      const known = times.get(doc.event_id);
      if (!known || attempted < known.attempted) times.set(doc.event_id, { created: doc.created_at.getTime(), attempted });
    }
    return times;
  } finally {
    await client.close();
  }
}

/** The Kafka timestamp (set by the relay's producer) of each event in `wanted`, read from the start of the topic. */
async function recordTimes(env: NodeJS.ProcessEnv, wanted: Set<string>): Promise<Map<string, number>> {
  const kafka = kafkaFromEnv(env, { clientId: 'bench-stages' });
  const consumer = kafka.consumer({ groupId: `bench-stages-${Date.now().toString(36)}`, maxWaitTimeInMs: 200 });
  const times = new Map<string, number>();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: env.EVENTS_TOPIC ?? '', fromBeginning: true });
    let done: () => void = () => {};
    const complete = new Promise<void>((resolve) => (done = resolve));
    await consumer.run({
      eachMessage: async ({ message }) => {
        const id = message.headers?.['event-id']?.toString();
        if (id && wanted.has(id)) times.set(id, Number(message.timestamp));
        if (times.size >= wanted.size) done();
      },
    });
    await Promise.race([complete, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  } finally {
    await consumer.disconnect();
  }
  return times;
}
