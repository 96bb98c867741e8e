import { apiClient } from './api-client';
import { connectNumbers, launch, seedAudience } from './broadcast-setup';
import type { OwnSystem } from './own-system';
import type { FastReceiver } from './receiver';
import { percentile, round, sleep } from './stats';
import { duplicatesOf, subscribe } from './webhook-scenarios';

export interface WebhookBroadcasts {
  broadcasts: number;
  recipients_each: number;
  /** Sends per second of the two together, first send to last (the simulator's record). */
  sends_per_s: number;
  /** Status events (message.sent, .delivered, .read, .failed) the broadcasts' stats call for, received, and duplicates among them. */
  expected: number;
  events: number;
  duplicates: number;
  /** Status event written (created_at) → received. */
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** From the last status event written to the last one received. */
  last_after_last_ms: number;
}

const KINDS = ['message.sent', 'message.delivered', 'message.read', 'message.failed'];

/**
 * Two broadcasts of `recipients` contacts each on two official numbers, launched together with the aggressive send
 * profile (production pacing), while a subscription receives every status event of their messages: how far behind
 * the statuses the webhooks are, and how soon after the last status the last event arrives.
 */
export async function measureBroadcastEvents(own: OwnSystem, receiver: FastReceiver, recipients: number, log: (line: string) => void) {
  const api = apiClient(own.system.baseUrl, own.key);
  const numbers = await connectNumbers(own);
  await subscribe(api, receiver.url('broadcasts'), KINDS);
  const first = receiver.arrivals.length;
  const lanes = numbers.official.slice(0, 2);
  for (const [index] of lanes.entries()) await seedAudience(own, `webhook-broadcast-${index}`, recipients, 70_000 + index * 10_000);
  const launched = await Promise.all(
    lanes.map((number, index) => launch(api, 'official', number, `webhook-broadcast-${index}`, 'aggressive')),
  );
  const expected = await waitUntilRead(
    api,
    launched.map((broadcast) => broadcast.id),
    recipients,
  );
  await settle(receiver);

  const arrivals = receiver.arrivals.slice(first).filter((arrival) => arrival.path === '/fast/broadcasts');
  const lags = arrivals.map((arrival) => arrival.at - arrival.createdAt).sort((a, b) => a - b);
  const sends = arrivals.filter((arrival) => arrival.type === 'message.sent').map((arrival) => arrival.createdAt);
  const figures: WebhookBroadcasts = {
    broadcasts: lanes.length,
    recipients_each: recipients,
    sends_per_s: round((sends.length - 1) / Math.max(0.001, (Math.max(...sends) - Math.min(...sends)) / 1000)),
    expected,
    events: new Set(arrivals.map((arrival) => arrival.eventId)).size,
    duplicates: duplicatesOf(arrivals),
    p50_ms: percentile(lags, 50),
    p99_ms: percentile(lags, 99),
    max_ms: percentile(lags, 100),
    last_after_last_ms: Math.max(...arrivals.map((a) => a.at)) - Math.max(...arrivals.map((a) => a.createdAt)),
  };
  log(
    `  ${figures.events} status events, ${figures.sends_per_s} sends/s; p99 ${figures.p99_ms} ms, last ${figures.last_after_last_ms} ms after the last status`,
  );
  return figures;
}

interface Stats {
  sent: number;
  delivered: number;
  read: number;
  failed: number;
}

/**
 * Until every recipient of both broadcasts has read its message or failed (the simulator reports sent, delivered,
 * read). Returns the status events their stats call for: one per send, delivery, read and failure.
 */
async function waitUntilRead(api: ReturnType<typeof apiClient>, ids: string[], recipients: number): Promise<number> {
  const deadline = Date.now() + 900_000;
  for (;;) {
    const states = await Promise.all(ids.map((id) => api.call<{ data: { status: string; stats: Stats } }>('GET', `/v1/broadcasts/${id}`)));
    if (states.every((state) => state.data.stats.read + state.data.stats.failed >= recipients))
      return states.reduce((sum, { data: { stats } }) => sum + stats.sent + stats.delivered + stats.read + stats.failed, 0);
    if (Date.now() > deadline) throw new Error(`the broadcasts did not finish: ${JSON.stringify(states.map((state) => state.data))}`);
    await sleep(500);
  }
}

/** Until no delivery arrived for 3 s: every status event that is coming has come. */
async function settle(receiver: FastReceiver): Promise<void> {
  let count = -1;
  while (count !== receiver.arrivals.length) {
    count = receiver.arrivals.length;
    await sleep(3_000);
  }
}
