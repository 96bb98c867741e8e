/**
 * The peer: one Fastify process with the official mongodb driver answering GET /v1/contacts the simplest way, on
 * the same database server and data as the project. Per request: look the bearer key's SHA-256 up in the CRM's
 * `api_keys`, then one sorted page of 25 live contacts of that organization (newest first) and a count, in
 * parallel. No gRPC hop, no schema layer, no caches: what one process doing the same reads can reach.
 * Started by the benchmark: `BENCH_PORT=… MONGODB_URI=… CRM_DB_NAME=… node --import tsx …`.
 */
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import { MongoClient } from 'mongodb';

const PAGE = 25;

interface KeyDoc {
  org_id: string;
  revoked_at: Date | null;
  expires_at: Date | null;
}

interface ContactDoc {
  _id: string;
  created_at: Date;
  [field: string]: unknown;
}

async function main(): Promise<void> {
  const client = await new MongoClient(process.env.MONGODB_URI ?? '').connect();
  const db = client.db(process.env.CRM_DB_NAME);
  const keys = db.collection<KeyDoc>('api_keys');
  const contacts = db.collection<ContactDoc>('contacts');

  const app = Fastify({ logger: false });
  app.get('/v1/contacts', async (request, reply) => {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const hash = bearer ? createHash('sha256').update(bearer, 'utf8').digest('hex') : '';
    const key = hash ? await keys.findOne({ hash }, { projection: { org_id: 1, revoked_at: 1, expires_at: 1 } }) : null;
    if (!key || key.revoked_at || (key.expires_at && key.expires_at <= new Date())) {
      return reply.code(401).send({ error: { type: 'authentication_error', code: 'UNAUTHORIZED', message: 'invalid API key' } });
    }
    const live = { org_id: key.org_id, deleted_at: null };
    const [rows, total] = await Promise.all([
      contacts
        .find(live, { projection: { _outbox: 0, _outbox_pending: 0, name_key: 0, search_keys: 0, search_text: 0 } })
        .sort({ created_at: -1, _id: -1 })
        .limit(PAGE + 1)
        .toArray(),
      contacts.countDocuments(live),
    ]);
    const data = rows.slice(0, PAGE).map(({ _id, ...rest }) => ({ id: _id, ...rest }));
    return { data, meta: { total, has_more: rows.length > PAGE } };
  });

  await app.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_PORT) });
  process.once(
    'SIGTERM',
    () =>
      void app
        .close()
        .then(() => client.close())
        .then(() => process.exit(0)),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
