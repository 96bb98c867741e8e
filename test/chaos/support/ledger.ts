import type { CrmClient } from '@crm/client';
import { verifySignature } from '../../../services/webhooks/src/delivery/signing';
import { recipientsOf } from '../../support/broadcasts';
import { eventsOf, type ReceivedEvent } from '../../support/events';
import type { ReceivedRequest, Receiver } from '../../support/webhook-receiver';
import type { AckedWrite } from './load';

/** One subscription's receiver; `exempt` names events it is not expected to get by design (e.g. while paused). */
export interface Subscriber {
  receiver: Receiver;
  secret: string;
  exempt?: (event: ReceivedEvent) => boolean;
}

export interface LedgerCounts {
  writesAcked: number;
  writesLost: number;
  eventsExpected: number;
  eventsLost: number;
  deliveriesLost: number;
  duplicates: number;
  badSignatures: number;
  /** Deliveries not expected by design (410 pause): reported, never counted as lost. */
  exempted: number;
  lostSamples: string[];
}

const key = (type: string, id: unknown): string => `${type}:${String(id)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the acknowledged write reads back as written; retried a while, a recovering service may still answer 5xx. */
async function readsBack(client: CrmClient, write: AckedWrite, deadline: number): Promise<boolean> {
  for (;;) {
    const path = { params: { path: { id: write.id } } };
    const { response, data } =
      write.what === 'deal'
        ? await client.GET('/v1/deals/{id}', path)
        : write.what === 'message'
          ? await client.GET('/v1/messages/{id}', path)
          : write.what === 'broadcast'
            ? await client.GET('/v1/broadcasts/{id}', path)
            : await client.GET('/v1/contacts/{id}', path);
    if (response.ok && data) return write.name === undefined || (data.data as { name?: string }).name === write.name;
    if (response.status === 404 || Date.now() > deadline) return false;
    await sleep(500);
  }
}

/** Waits until `missing()` is empty or the deadline passes; returns what is still missing. */
async function waitForNone(missing: () => string[], deadline: number): Promise<string[]> {
  while (missing().length > 0 && Date.now() < deadline) await sleep(250);
  return missing();
}

const deliveredOk = (receiver: Receiver): ReceivedRequest[] => receiver.received.filter((request) => request.answered === 200);

/**
 * Compares what the API acknowledged with what reached the database (read back through the API), the events topic
 * and each receiver. A broadcast's expected events are one message.sent per recipient, known once it has finished.
 */
export async function checkLedger(options: {
  client: CrmClient;
  orgId: string;
  acked: AckedWrite[];
  subscribers: Subscriber[];
  waitMs: number;
}): Promise<LedgerCounts> {
  const deadline = Date.now() + options.waitMs;
  const lostSamples: string[] = [];
  const lostWrites: AckedWrite[] = [];
  for (let i = 0; i < options.acked.length; i += 8) {
    const batch = options.acked.slice(i, i + 8);
    const read = await Promise.all(batch.map((write) => readsBack(options.client, write, deadline)));
    lostWrites.push(...batch.filter((_, index) => !read[index]));
  }
  lostSamples.push(...lostWrites.slice(0, 3).map((write) => `write ${write.what} ${write.id}`));

  const expected = new Set(options.acked.flatMap((write) => write.events.map((type) => key(type, write.id))));
  for (const broadcast of options.acked.filter((write) => write.what === 'broadcast'))
    for (const recipient of await recipientsOf(options.client, broadcast.id).catch(() => []))
      if (recipient.message_id) expected.add(key('message.sent', recipient.message_id));

  const events = await eventsOf(options.orgId);
  try {
    const onTopic = () => new Map(events.received.map((event) => [key(event.type, event.data?.object?.id), event]));
    const eventsMissing = await waitForNone(() => [...expected].filter((k) => !onTopic().has(k)), deadline);
    lostSamples.push(...eventsMissing.slice(0, 3).map((k) => `event ${k}`));

    let deliveriesLost = 0;
    let duplicates = 0;
    let badSignatures = 0;
    let exempted = 0;
    const published = onTopic();
    for (const { receiver, secret, exempt } of options.subscribers) {
      const owed = [...expected].filter((k) => published.has(k) && !exempt?.(published.get(k)!));
      exempted += [...expected].filter((k) => published.has(k)).length - owed.length;
      const delivered = () => new Set(deliveredOk(receiver).map((request) => key(request.event.type, request.event.data?.object?.id)));
      const missing = await waitForNone(() => owed.filter((k) => !delivered().has(k)), deadline);
      deliveriesLost += missing.length;
      lostSamples.push(...missing.slice(0, 3).map((k) => `delivery ${k}`));
      const copies = new Map<string, number>();
      for (const request of deliveredOk(receiver)) copies.set(request.event.id, (copies.get(request.event.id) ?? 0) + 1);
      duplicates += [...copies.values()].reduce((sum, count) => sum + count - 1, 0);
      badSignatures += receiver.received.filter(
        (request) =>
          !verifySignature({
            body: request.body,
            timestampSeconds: String(request.headers['x-webhook-timestamp'] ?? ''),
            signatureHeader: String(request.headers['x-webhook-signature'] ?? ''),
            secret,
          }).ok,
      ).length;
    }
    return {
      writesAcked: options.acked.length,
      writesLost: lostWrites.length,
      eventsExpected: expected.size,
      eventsLost: eventsMissing.length,
      deliveriesLost,
      duplicates,
      badSignatures,
      exempted,
      lostSamples,
    };
  } finally {
    await events.stop();
  }
}
