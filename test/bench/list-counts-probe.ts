import { mongo } from 'mongoose';
import { cpuSecondsOf, stackProcesses } from './proc-stats';
import { round } from './stats';

/**
 * Issue 23's probe: what the store costs for a page of the contact list with its contacts' notes and deals counts,
 * each way it can be asked, straight through the mongodb driver (no gateway, gRPC or service), on an organization
 * of its own in a database of its own (`probe_list_counts`, dropped first). The ways run in turns, several rounds,
 * so each sees the same machine; each reports wall ms, this process's CPU ms (the driver's share of the CRM) and
 * the database server's CPU ms per page (/proc; the shared stack's other clients add to it, hence the rounds).
 *
 *   current     the page (find) and the counts ($unionWith aggregate of links.repository countsByContact): 2 commands
 *   lookup      one aggregate: the page, then a $lookup per count with localField/foreignField and a $count pipeline
 *   lookup-let  the same with let/pipeline and $expr (what a store without localField+pipeline would need)
 *   find-only   the page alone: what a page costs when the counts are stored on the contact (design b)
 *   companies   the page and its company names in one aggregate ($lookup on _id), against find + find (companyNames)
 *
 *   MONGODB_URI=… npx tsx test/bench/list-counts-probe.ts [contacts=1000] [runs=200] [rounds=3] [linked=1]
 *
 * PROBE_WAYS=current,lookup,find-only times those ways alone (lookup-let takes seconds a page at 10,000 contacts).
 * `linked` 0 seeds no notes and no deals (the benchmark's organization has none): what each way costs when the
 * counts find nothing.
 */
const [contactCount = 1000, runs = 200, rounds = 3, linked = 1] = process.argv.slice(2).map(Number);
const PAGE = 50;
const ORG = 'org_probe';
const live = { org_id: ORG, deleted_at: null };
const sort = { created_at: -1, _id: -1 } as const;

const client = new mongo.MongoClient(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27027/?directConnection=true');
const db = client.db('probe_list_counts');
const contacts = db.collection<{ _id: string } & mongo.Document>('contacts');
const notes = db.collection<{ _id: string } & mongo.Document>('notes');
const deals = db.collection<{ _id: string } & mongo.Document>('deals');
const companies = db.collection<{ _id: string } & mongo.Document>('companies');

/** Unless `linked` is 0: 0–4 notes a contact (one in four of the 4th deleted), a deal per contact linking two of them (one in ten deleted). */
async function seed(): Promise<void> {
  await db.dropDatabase();
  await contacts.createIndex({ org_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
  await notes.createIndex({ org_id: 1, contact_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
  await deals.createIndex({ org_id: 1, contact_ids: 1 });
  const start = Date.parse('2026-01-01');
  const ids = Array.from({ length: contactCount }, (_, i) => `ct_${String(i).padStart(6, '0')}`);
  await companies.insertMany(
    Array.from({ length: 20 }, (_, i) => ({ _id: `co_${i}`, org_id: ORG, name: `Company ${i}`, deleted_at: null })),
  );
  await contacts.insertMany(
    ids.map((id, i) => ({
      _id: id,
      ...live,
      created_at: new Date(start + i * 60_000),
      name: `Contact ${i}`,
      email: `c${i}@example.com`,
      tags: ['lead'],
      company_id: i % 3 === 0 ? `co_${i % 20}` : null,
    })),
  );
  if (!linked) return;
  await notes.insertMany(
    ids.flatMap((id, i) =>
      Array.from({ length: i % 5 }, (_, k) => ({
        _id: `nt_${i}_${k}`,
        org_id: ORG,
        contact_id: id,
        deleted_at: k === 3 ? new Date() : null,
        content: 'x'.repeat(200),
      })),
    ),
  );
  await notes.insertOne({ _id: 'nt_other_org', org_id: 'org_other', contact_id: ids[ids.length - 1], deleted_at: null });
  await deals.insertMany(
    ids.map((id, i) => ({
      _id: `dl_${i}`,
      org_id: ORG,
      contact_ids: [id, ids[(i * 7) % ids.length]],
      deleted_at: i % 10 === 0 ? new Date() : null,
      value: i,
    })),
  );
}

type Counts = Map<string, string>;

const linkedRows = (field: string, ids: string[], kind: string) => [
  { $match: { ...live, [field]: { $in: ids } } },
  { $unwind: `$${field}` },
  { $match: { [field]: { $in: ids } } },
  { $project: { _id: 0, kind: { $literal: kind }, contact: `$${field}` } },
];

async function current(): Promise<Counts> {
  const page = (
    await contacts
      .find(live)
      .sort(sort)
      .limit(PAGE + 1)
      .toArray()
  ).slice(0, PAGE);
  const ids = page.map((contact) => contact._id);
  const rows = await notes
    .aggregate<{ _id: { kind: 'notes' | 'deals'; contact: string }; n: number }>([
      ...linkedRows('contact_id', ids, 'notes'),
      { $unionWith: { coll: 'deals', pipeline: linkedRows('contact_ids', ids, 'deals') } },
      { $group: { _id: { kind: '$kind', contact: '$contact' }, n: { $sum: 1 } } },
    ])
    .toArray();
  const n = (kind: string, id: string) => rows.find((row) => row._id.kind === kind && row._id.contact === id)?.n ?? 0;
  return new Map(ids.map((id) => [id, `${n('notes', id)}/${n('deals', id)}`]));
}

const lookupStages = [
  {
    $lookup: { from: 'notes', localField: '_id', foreignField: 'contact_id', pipeline: [{ $match: live }, { $count: 'n' }], as: '_notes' },
  },
  {
    $lookup: { from: 'deals', localField: '_id', foreignField: 'contact_ids', pipeline: [{ $match: live }, { $count: 'n' }], as: '_deals' },
  },
];
const letStages = [
  {
    $lookup: {
      from: 'notes',
      let: { id: '$_id' },
      pipeline: [{ $match: { ...live, $expr: { $eq: ['$contact_id', '$$id'] } } }, { $count: 'n' }],
      as: '_notes',
    },
  },
  {
    $lookup: {
      from: 'deals',
      let: { id: '$_id' },
      pipeline: [{ $match: { ...live, $expr: { $in: ['$$id', '$contact_ids'] } } }, { $count: 'n' }],
      as: '_deals',
    },
  },
];

const inOneAggregate = (stages: mongo.Document[]) => async (): Promise<Counts> => {
  const page = (await contacts.aggregate([{ $match: live }, { $sort: sort }, { $limit: PAGE + 1 }, ...stages]).toArray()).slice(0, PAGE);
  const n = (rows: unknown) => (rows as Array<{ n: number }>)[0]?.n ?? 0;
  return new Map(page.map((contact) => [String(contact._id), `${n(contact._notes)}/${n(contact._deals)}`]));
};

async function findOnly(): Promise<void> {
  await contacts
    .find(live)
    .sort(sort)
    .limit(PAGE + 1)
    .toArray();
}

async function pageAndCompanies(): Promise<void> {
  const page = await contacts
    .find(live)
    .sort(sort)
    .limit(PAGE + 1)
    .toArray();
  const ids = [...new Set(page.flatMap((contact) => (contact.company_id ? [contact.company_id as string] : [])))];
  if (ids.length > 0) await companies.find({ org_id: ORG, _id: { $in: ids } }, { projection: { name: 1 } }).toArray();
}

async function companiesInOne(): Promise<void> {
  await contacts
    .aggregate([
      { $match: live },
      { $sort: sort },
      { $limit: PAGE + 1 },
      {
        $lookup: {
          from: 'companies',
          localField: 'company_id',
          foreignField: '_id',
          pipeline: [{ $project: { name: 1 } }],
          as: '_company',
        },
      },
    ])
    .toArray();
}

const ways: Record<string, () => Promise<unknown>> = {
  current,
  lookup: inOneAggregate(lookupStages),
  'lookup-let': inOneAggregate(letStages),
  'find-only': findOnly,
  'find+companies': pageAndCompanies,
  'companies-in-one': companiesInOne,
};

async function main(): Promise<void> {
  await seed();
  const only = process.env.PROBE_WAYS ? process.env.PROBE_WAYS.split(',') : undefined;
  for (const name of Object.keys(ways)) if (only && !only.includes(name)) delete ways[name];
  const expected = JSON.stringify([...(await current())]);
  for (const name of ['lookup', 'lookup-let'].filter((way) => way in ways)) {
    try {
      const same = JSON.stringify([...((await ways[name]!()) as Counts)]) === expected;
      console.log(`${name}: supported; counts ${same ? 'equal' : 'DIFFER from'} the current query's`);
    } catch (error) {
      console.log(`${name}: not supported (${(error as Error).message})`);
      delete ways[name];
    }
  }

  const database = stackProcesses().find((process) => process.name.startsWith('database'));
  const dbSeconds = () => (database ? (cpuSecondsOf(database.pid) ?? NaN) : NaN);
  for (let round_ = 1; round_ <= rounds; round_++)
    for (const [name, way] of Object.entries(ways)) {
      for (let i = 0; i < 10; i++) await way();
      const [cpu, dbBefore, started] = [process.cpuUsage(), dbSeconds(), performance.now()];
      for (let i = 0; i < runs; i++) await way();
      const used = process.cpuUsage(cpu);
      const per = (ms: number) => round(ms / runs, 2);
      console.log(
        `round ${round_} ${name.padEnd(16)} wall ${per(performance.now() - started)} ms  driver CPU ${per((used.user + used.system) / 1000)} ms` +
          `  database CPU ${per((dbSeconds() - dbBefore) * 1000)} ms  (per page of ${PAGE})`,
      );
    }
  await db.dropDatabase();
  await client.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
