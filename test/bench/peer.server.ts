/**
 * The peer: one Fastify process with the official mongodb driver answering the contact routes the simplest way, on
 * the same database server and data as the project. Per request: look the bearer key's SHA-256 up in the CRM's
 * `api_keys`, then GET /v1/contacts: one sorted page of 25 live contacts of that organization (newest first) and a
 * count, in parallel; GET /v1/contacts/:id: the contact with its newest 10 deals (one aggregate); POST
 * /v1/contacts: claim the Idempotency-Key, insert the contact with its contact.created event in the same document
 * (as the project's outbox), store the response under the key. No gRPC hop, no schema layer, no caches: what one
 * process doing the same work can reach.
 *
 * The same work means the same answer from the same data and queries: every contact stores its notes_count and
 * deals_count (the project keeps them in the transaction of each note and deal write), so the peer reads them from
 * the record as the project does, and the detail's newest deals with the project's query; what is compared is what
 * the architecture costs around them.
 * Started by the benchmark: `BENCH_PORT=… MONGODB_URI=… CRM_DB_NAME=… node --import tsx …`.
 */
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { MongoClient } from 'mongodb';

const PAGE = 25;
/** A new contact's stored fields besides its name, tags and dates (as the project's contact repository writes them). */
const EMPTY_CONTACT = {
  email: null,
  phone: null,
  photoapp_username: null,
  chatapp_jid: null,
  socialmsg_psid: null,
  socialmsg_name: null,
  source: 'api',
  avatar_url: null,
  company_id: null,
  custom_fields: {},
  funnel_stage: null,
  last_message_at: null,
  messages_count: 0,
  notes_count: 0,
  deals_count: 0,
  deleted_at: null,
  rev: 1,
};

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

  const idempotency = client.db(process.env.GATEWAY_DB_NAME).collection<{ _id: string; [field: string]: unknown }>('peer_idempotency');
  const app = Fastify({ logger: false });
  const refuse = (reply: FastifyReply) =>
    reply.code(401).send({ error: { type: 'authentication_error', code: 'UNAUTHORIZED', message: 'invalid API key' } });
  const orgOf = async (request: FastifyRequest): Promise<string | null> => {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const hash = bearer ? createHash('sha256').update(bearer, 'utf8').digest('hex') : '';
    const key = hash ? await keys.findOne({ hash }, { projection: { org_id: 1, revoked_at: 1, expires_at: 1 } }) : null;
    return !key || key.revoked_at || (key.expires_at && key.expires_at <= new Date()) ? null : key.org_id;
  };
  const shown = ({ _id, _outbox: _events, _outbox_pending: _pending, name_key: _key, ...rest }: ContactDoc) => ({ id: _id, ...rest });
  const liveOf = (orgId: string) => ({ org_id: orgId, deleted_at: null });

  /** The contact (its counts stored on it) and its newest 10 deals: one aggregate (as the project's detail). */
  const detailOf = async (orgId: string, id: string) => {
    const live = liveOf(orgId);
    const rows = await contacts
      .aggregate<ContactDoc & { _link?: string }>([
        { $match: { _id: id, ...live } },
        {
          $unionWith: {
            coll: 'deals',
            pipeline: [
              { $match: { ...live, contact_ids: id } },
              { $sort: { created_at: -1, _id: -1 } },
              { $limit: 10 },
              { $project: { title: 1, value: 1, status: 1, stage_id: 1, _link: 'deal' } },
            ],
          },
        },
      ])
      .toArray();
    const own = rows[0]?._id === id ? rows[0] : undefined;
    if (!own) return null;
    const linkedDeals = rows.filter((row) => row._link === 'deal').map(({ _id, _link, ...deal }) => ({ id: _id, ...deal }));
    return { ...shown(own), deals: linkedDeals };
  };

  app.get('/v1/contacts', async (request, reply) => {
    const orgId = await orgOf(request);
    if (!orgId) return refuse(reply);
    const live = liveOf(orgId);
    const [rows, total] = await Promise.all([
      contacts
        .find(live, { projection: { _outbox: 0, _outbox_pending: 0, name_key: 0, search_keys: 0, search_text: 0 } })
        .sort({ created_at: -1, _id: -1 })
        .limit(PAGE + 1)
        .toArray(),
      contacts.countDocuments(live),
    ]);
    const data = rows.slice(0, PAGE).map(shown);
    return { data, meta: { total, has_more: rows.length > PAGE } };
  });

  app.get<{ Params: { id: string } }>('/v1/contacts/:id', async (request, reply) => {
    const orgId = await orgOf(request);
    if (!orgId) return refuse(reply);
    const contact = await detailOf(orgId, request.params.id);
    if (!contact) return reply.code(404).send({ error: { type: 'not_found_error', code: 'NOT_FOUND', message: 'no such contact' } });
    return { data: contact };
  });

  app.post<{ Body: { name: string; tags?: string[] } }>('/v1/contacts', async (request, reply) => {
    const orgId = await orgOf(request);
    if (!orgId) return refuse(reply);
    const key = request.headers['idempotency-key'];
    const keyId = typeof key === 'string' ? `${orgId}:${key}` : null;
    if (keyId) await idempotency.insertOne({ _id: keyId, state: 'running', created_at: new Date() });
    const now = new Date();
    const id = `contact_${randomUUID().replace(/-/g, '')}`;
    const doc: ContactDoc = {
      _id: id,
      org_id: orgId,
      ...EMPTY_CONTACT,
      name: request.body.name,
      name_key: request.body.name.toLowerCase(),
      tags: request.body.tags ?? [],
      created_at: now,
      updated_at: now,
    };
    const event = {
      id: `evt_${randomUUID().replace(/-/g, '')}`,
      type: 'contact.created',
      org_id: orgId,
      data: shown(doc),
      occurred_at: now,
    };
    // Stored with the record in one write, as the project's outbox does; left unpublished (not pending), so the
    // project's relay spends nothing on the peer's events while the peer is measured.
    await contacts.insertOne({ ...doc, _outbox: [event], _outbox_pending: false });
    const body = { data: shown(doc) };
    if (keyId) await idempotency.updateOne({ _id: keyId }, { $set: { state: 'done', status: 201, body } });
    return reply.code(201).send(body);
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
