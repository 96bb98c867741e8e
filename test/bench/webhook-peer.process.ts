/**
 * The webhook peer: one Node process that reads events from the same database the project stored them in (the
 * deliveries of the throughput run: their exact bodies and their subscriptions' URLs) and POSTs each to its URL
 * with keep-alive connections, at most PEER_CONCURRENCY at once, recording every outcome with one bulk insert per
 * batch. No Kafka hop, no leases, no schedule: what one process doing the sending part can reach on this machine.
 * Prints one JSON line with its figures. Started by the benchmark: `MONGODB_URI=… WEBHOOKS_DB_NAME=… PEER_SINCE=…`.
 */
import { Agent, request } from 'node:http';
import { MongoClient } from 'mongodb';

interface DeliveryDoc {
  _id: string;
  webhook_id: string;
  request_body: string;
}

const BATCH = 500;

function post(agent: Agent, url: URL, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        method: 'POST',
        hostname: url.hostname,
        port: url.port,
        path: `${url.pathname}?peer=1`,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

async function main(): Promise<void> {
  const client = await new MongoClient(process.env.MONGODB_URI ?? '').connect();
  const db = client.db(process.env.WEBHOOKS_DB_NAME);
  const since = new Date(Number(process.env.PEER_SINCE));
  const concurrency = Number(process.env.PEER_CONCURRENCY ?? 64);
  const urls = new Map(
    (await db.collection<{ _id: string; url: string }>('webhooks').find({}).toArray()).map((webhook) => [
      webhook._id,
      new URL(webhook.url),
    ]),
  );
  const log = db.collection<{ _id: string; status: number; at: Date }>('peer_deliveries');
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const filter = { created_at: { $gte: since }, is_test: false, redelivery_of: null };
  const matched = await db.collection<DeliveryDoc>('deliveries').countDocuments(filter);
  const started = performance.now();
  let delivered = 0;
  let failed = 0;
  const cursor = db
    .collection<DeliveryDoc>('deliveries')
    .find(filter, { projection: { webhook_id: 1, request_body: 1 }, batchSize: BATCH });
  let batch: DeliveryDoc[] = [];
  const send = async (docs: DeliveryDoc[]) => {
    const outcomes: Array<{ _id: string; status: number; at: Date }> = [];
    let next = 0;
    const worker = async () => {
      for (let doc = docs[next++]; doc; doc = docs[next++]) {
        const url = urls.get(doc.webhook_id);
        const status = url ? await post(agent, url, doc.request_body) : 0;
        if (status >= 200 && status < 300) delivered++;
        else failed++;
        outcomes.push({ _id: doc._id, status, at: new Date() });
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, docs.length) }, worker));
    // The next batch is sent while this one's outcomes are written.
    writes.push(log.insertMany(outcomes, { ordered: false }));
  };
  const writes: Promise<unknown>[] = [];
  for await (const doc of cursor) {
    batch.push(doc);
    if (batch.length === BATCH) {
      await send(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await send(batch);
  await Promise.all(writes);
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ matched, delivered, failed, seconds, per_s: delivered / seconds }));
  agent.destroy();
  await client.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
