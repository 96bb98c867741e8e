/**
 * The peer: one Fastify process with the official mongodb driver answering the contact routes the simplest way, on
 * the same database server and data as the project. Per request: look the bearer key's SHA-256 up in the CRM's
 * `api_keys`, then GET /v1/contacts: one sorted page of 25 live contacts of that organization (newest first) and a
 * count, in parallel, then the page's notes and deals counts; GET /v1/contacts/:id: the contact with its notes and
 * deals counts and newest 10 deals; POST /v1/contacts: claim the Idempotency-Key, insert the contact with its
 * contact.created event in the same document (as the project's outbox), store the response under the key. No gRPC
 * hop, no schema layer, no caches: what one process doing the same work can reach.
 *
 * The same work means the same answer from the same queries: the API shows every contact's notes_count and
 * deals_count, and the detail its newest deals, so the peer reads them with the queries the project sends (one
 * aggregate each, $unionWith over notes and deals), and what is compared is what the architecture costs around them.
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
  const notes = db.collection('notes');
  const liveOf = (orgId: string) => ({ org_id: orgId, deleted_at: null });

  /** The notes and deals linked to each of `ids`, one row per link, grouped: one command (as the project's list). */
  const countsOf = async (orgId: string, ids: string[]) => {
    const linked = (field: string, kind: string) => [
      { $match: { ...liveOf(orgId), [field]: { $in: ids } } },
      { $unwind: `$${field}` },
      { $match: { [field]: { $in: ids } } },
      { $project: { _id: 0, kind: { $literal: kind }, contact: `$${field}` } },
    ];
    const rows = await notes
      .aggregate<{ _id: { kind: string; contact: string }; n: number }>([
        ...linked('contact_id', 'notes'),
        { $unionWith: { coll: 'deals', pipeline: linked('contact_ids', 'deals') } },
        { $group: { _id: { kind: '$kind', contact: '$contact' }, n: { $sum: 1 } } },
      ])
      .toArray();
    const count = (kind: string, id: string) => rows.find((row) => row._id.kind === kind && row._id.contact === id)?.n ?? 0;
    return (id: string) => ({ notes_count: count('notes', id), deals_count: count('deals', id) });
  };

  /** The contact, its notes and deals counts and its newest 10 deals: one aggregate (as the project's detail). */
  const detailOf = async (orgId: string, id: string) => {
    const live = liveOf(orgId);
    const dealsOf = { $match: { ...live, contact_ids: id } };
    const count = { $group: { _id: null, n: { $sum: 1 } } };
    const rows = await contacts
      .aggregate<ContactDoc & { _link?: string; n?: number }>([
        { $match: { _id: id, ...live } },
        { $unionWith: { coll: 'notes', pipeline: [{ $match: { ...live, contact_id: id } }, count, { $set: { _link: 'notes' } }] } },
        { $unionWith: { coll: 'deals', pipeline: [dealsOf, count, { $set: { _link: 'deals' } }] } },
        {
          $unionWith: {
            coll: 'deals',
            pipeline: [
              dealsOf,
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
    const countOf = (kind: string) => rows.find((row) => row._link === kind)?.n ?? 0;
    const linkedDeals = rows.filter((row) => row._link === 'deal').map(({ _id, _link, ...deal }) => ({ id: _id, ...deal }));
    return { ...shown(own), notes_count: countOf('notes'), deals_count: countOf('deals'), deals: linkedDeals };
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
    const page = rows.slice(0, PAGE);
    const counts = await countsOf(
      orgId,
      page.map((row) => row._id),
    );
    const data = page.map((row) => ({ ...shown(row), ...counts(row._id) }));
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
