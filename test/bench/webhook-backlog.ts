import { MongoClient } from 'mongodb';
import type { OwnSystem } from './own-system';
import { untilQuiet } from './quiet';
import type { FastReceiver } from './receiver';
import { round, sleep } from './stats';
import { DRAIN_TIMEOUT_MS, pacedContactWrites, type Tenant } from './webhook-scenarios';

export interface WebhookBacklog {
  contacts_created: number;
  expected: number;
  delivered: number;
  duplicates: number;
  /** From SIGCONT to the last delivery. */
  seconds: number;
  deliveries_per_s: number;
  /** From SIGCONT until every outcome was stored (no delivery of the backlog pending): what the peer measures. */
  recorded_seconds: number;
  recorded_per_s: number;
}

/**
 * The sending side at full speed, as the peer measures it: the webhooks replicas are stopped (SIGSTOP) while
 * `rate` contacts/s are created for `seconds` s (their events wait in Kafka), then resumed; the figure is the
 * backlog's deliveries over the time from the resume to the last delivery (consume, POST, store with the outcome).
 * The peer then reads the same deliveries from the database and POSTs them (webhook-peer.ts).
 */
export async function measureBacklogDrain(
  own: OwnSystem,
  tenant: Tenant,
  receiver: FastReceiver,
  load: { subscriptions: number; paths: (path: string) => boolean; rate: number; seconds: number },
): Promise<WebhookBacklog> {
  const webhooks = own.system.processes.filter((process) => process.name.startsWith('webhooks'));
  const first = receiver.arrivals.length;
  const started = new Date();
  for (const process of webhooks) process.child.kill('SIGSTOP');
  let writes: Awaited<ReturnType<typeof pacedContactWrites>>;
  let resumed: number;
  try {
    writes = await pacedContactWrites(own.system.baseUrl, [tenant], load.rate, load.seconds);
    // The last writes' events leave the outbox relay within this; the drain then starts on a quiet machine. At most
    // 10 s more: stopped longer than Kafka's session timeout (30 s), the replicas would resume into a rebalance.
    await sleep(2_000);
    await untilQuiet({ maxMs: 10_000 });
  } finally {
    resumed = Date.now();
    for (const process of webhooks) process.child.kill('SIGCONT');
  }
  profileWindow(webhooks);
  const expected = writes.sentAt.size * load.subscriptions;
  const arrivals = () =>
    receiver.arrivals.slice(first).filter((arrival) => load.paths(arrival.path) && writes.sentAt.has(arrival.objectId));
  const unique = () => new Set(arrivals().map((arrival) => `${arrival.path} ${arrival.eventId}`)).size;
  await receiver.waitUntil(() => unique() >= expected, DRAIN_TIMEOUT_MS);
  const recordedAt = await allOutcomesStored(own.system.env, started);
  profileWindow(webhooks);
  const last = Math.max(resumed, ...arrivals().map((arrival) => arrival.at));
  const delivered = unique();
  return {
    contacts_created: writes.sentAt.size,
    expected,
    delivered,
    duplicates: arrivals().length - delivered,
    seconds: round((last - resumed) / 1000, 2),
    deliveries_per_s: round(delivered / Math.max(0.001, (last - resumed) / 1000)),
    recorded_seconds: round((recordedAt - resumed) / 1000, 2),
    recorded_per_s: round(delivered / Math.max(0.001, (recordedAt - resumed) / 1000)),
  };
}

/** When no delivery created since `since` is pending any more: every outcome of the backlog stored. */
async function allOutcomesStored(env: NodeJS.ProcessEnv, since: Date): Promise<number> {
  const client = await new MongoClient(env.MONGODB_URI ?? '').connect();
  try {
    const deliveries = client.db(env.WEBHOOKS_DB_NAME).collection('deliveries');
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if ((await deliveries.countDocuments({ status: 'pending', created_at: { $gte: since } })) === 0) return Date.now();
      await sleep(50);
    }
    throw new Error(`the backlog's outcomes were not all stored within ${DRAIN_TIMEOUT_MS} ms`);
  } finally {
    await client.close();
  }
}

/** With BENCH_PROFILE_DRAIN=1 the replicas profile between two SIGUSR2 (cpu-profile.mjs): the drain alone. */
function profileWindow(processes: OwnSystem['system']['processes']): void {
  if (process.env.BENCH_PROFILE_DRAIN !== '1' || !process.env.BENCH_CPU_PROFILE) return;
  for (const replica of processes) replica.child.kill('SIGUSR2');
}
