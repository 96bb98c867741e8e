import { contactRecord } from '../support/crm-records';
import { cpuSecondsOf, stackProcesses } from './proc-stats';
import { round } from './stats';

/**
 * What storing the contacts' notes_count and deals_count costs a write (docs/performance.md): POST a note on a
 * contact and POST a deal with one contact, through the CRM's domain functions (no gateway, no gRPC) of one or
 * more checkouts of this repository, on a database of their own, in turns, several rounds, so each sees the same
 * machine. Per write: wall ms one at a time, writes/s with 16 in flight, database commands, and the CPU ms of this
 * process (the CRM's share) and of the database server (/proc; the shared stack's other clients add to it).
 *
 *   MONGODB_URI=… npx tsx test/bench/write-counts-probe.ts [runs=200] [rounds=3] [checkout=.] [checkout…]
 *
 * A checkout before the counts were stored writes the note (or deal) alone, coalesced with its neighbours; this
 * one writes it and moves its contact's counts in one transaction.
 */
const args = process.argv.slice(2);
const runs = Number(args[0] ?? 200);
const rounds = Number(args[1] ?? 3);
const checkouts = args.length > 2 ? args.slice(2) : ['.'];
const IN_FLIGHT = 16;

type Writer = (record: object, events?: unknown[]) => Promise<unknown>;

interface Crm {
  name: string;
  deps: Record<string, unknown> & { contacts: { insert: Writer }; funnels: { insert: Writer } };
  note: (orgId: string, contactId: string) => Promise<unknown>;
  deal: (orgId: string, contactId: string, funnelId: string) => Promise<unknown>;
  newId: (prefix: string) => string;
  commands: () => number;
}

async function open(checkout: string, index: number): Promise<Crm> {
  const root = new URL(`${checkout.replace(/\/?$/, '/')}`, `file://${process.cwd()}/`).pathname;
  const shared = await import(`${root}services/shared/src/index.ts`);
  const { createDeps } = await import(`${root}services/crm/src/wiring.ts`);
  const { createNote } = await import(`${root}services/crm/src/domain/notes.ts`);
  const { createDeal } = await import(`${root}services/crm/src/domain/deals.ts`);
  const storage = await shared.connectStorage(process.env.MONGODB_URI, `probe_write_counts_${index}`, { monitorCommands: true });
  await storage.connection.dropDatabase();
  let commands = 0;
  storage.connection.getClient().on('commandStarted', () => commands++);
  const deps = createDeps(storage, shared.createLogger('probe', 'silent'));
  await Promise.all(Object.values(storage.connection.models).map((model) => (model as { init(): Promise<unknown> }).init()));
  return {
    name: checkout,
    deps,
    newId: shared.newId,
    note: (orgId, contactId) => createNote(deps, orgId, { kind: 'contact', id: contactId }, { content: 'Called back' }),
    deal: (orgId, contactId, funnelId) => createDeal(deps, orgId, { title: 'Probe', funnel_id: funnelId, contact_ids: [contactId] }),
    commands: () => commands,
  };
}

async function organization(crm: Crm) {
  const orgId = crm.newId('organization');
  const at = new Date();
  const stage = { id: crm.newId('stage'), name: 'New', color: null, probability: null, created_at: at, updated_at: at };
  const funnel = {
    id: crm.newId('funnel'),
    org_id: orgId,
    name: 'Sales',
    position: 1,
    default_at: null,
    is_archived: false,
    stages: [stage],
    created_at: at,
    updated_at: at,
  };
  await crm.deps.funnels.insert(funnel);
  const contacts: string[] = [];
  for (let i = 0; i < 50; i++) {
    const id = crm.newId('contact');
    contacts.push(id);
    await crm.deps.contacts.insert(contactRecord(orgId, { id, name: `Probe ${i}`, created_at: at, updated_at: at }), []);
  }
  return { orgId, funnelId: funnel.id, contacts };
}

const database = stackProcesses().find((process) => process.name.startsWith('database'));
const dbSeconds = () => (database ? (cpuSecondsOf(database.pid) ?? NaN) : NaN);

async function measure(crm: Crm, write: (contactId: string) => Promise<unknown>, contacts: string[]) {
  const pick = (i: number) => contacts[i % contacts.length]!;
  const [commands0, db0, cpu0, t0] = [crm.commands(), dbSeconds(), process.cpuUsage(), performance.now()];
  for (let i = 0; i < runs; i++) await write(pick(i));
  const serialMs = (performance.now() - t0) / runs;
  const perWrite = (crm.commands() - commands0) / runs;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000 / runs;
  const dbMs = ((dbSeconds() - db0) * 1000) / runs;
  let next = 0;
  const t1 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < runs * 2) await write(pick(next++));
    }),
  );
  const perSecond = (runs * 2) / ((performance.now() - t1) / 1000);
  return {
    serialMs: round(serialMs, 2),
    perSecond: Math.round(perSecond),
    commands: round(perWrite, 2),
    cpuMs: round(cpuMs, 2),
    dbMs: round(dbMs, 2),
  };
}

async function main(): Promise<void> {
  const crms = await Promise.all(checkouts.map(open));
  const seeded = new Map<Crm, Awaited<ReturnType<typeof organization>>>();
  for (const crm of crms) seeded.set(crm, await organization(crm));
  for (let r = 1; r <= rounds; r++) {
    for (const crm of crms) {
      const { orgId, funnelId, contacts } = seeded.get(crm)!;
      const note = await measure(crm, (contactId) => crm.note(orgId, contactId), contacts);
      const deal = await measure(crm, (contactId) => crm.deal(orgId, contactId, funnelId), contacts);
      console.log(`round ${r} ${crm.name}\n  POST note: ${JSON.stringify(note)}\n  POST deal: ${JSON.stringify(deal)}`);
    }
  }
  process.exit(0);
}

void main();
