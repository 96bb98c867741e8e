import { Schema } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandsSent, testEvent, testStorage } from '../../../../test/support/integration';
import { withCommandCount } from './command-count';
import { WriteConflict } from './conflicts';
import { RecordStore, RevisionedRecords } from './record-store';
import { writeRevision } from './revisioned-write';
import type { Storage } from './storage';

interface Thing {
  id: string;
  org_id: string;
  name: string;
  tags: string[];
  created_at: Date;
}

const thingSchema = () =>
  new Schema(
    {
      _id: { type: String, required: true },
      org_id: { type: String, required: true },
      name: { type: String, required: true },
      tags: { type: [String], default: [] },
      created_at: { type: Date, required: true },
    },
    { versionKey: false, collection: 'things', minimize: false },
  );

const thing = (n: number, at = new Date(Date.UTC(2026, 0, 1))): Thing => ({
  id: `th_${String(n).padStart(3, '0')}`,
  org_id: 'org_a',
  name: `Thing ${n}`,
  tags: [],
  created_at: at,
});

describe('the storage kit on the real database server', () => {
  let storage: Storage;
  let things: RevisionedRecords<Thing>;
  beforeAll(async () => {
    storage = await testStorage('kit');
    things = new RevisionedRecords<Thing>(storage, {
      model: 'Thing',
      schema: thingSchema(),
      what: 'thing',
      outbox: true,
      internal: ['name_key'],
      derive: (fields) => (fields.name ? { name_key: fields.name.toLowerCase() } : {}),
    });
    await things.model.init();
  });
  afterAll(() => storage.close());

  it('stores a record at revision 1, keeps its internal keys and outbox out of the record, and derives its sort keys', async () => {
    const stored = await things.insert(thing(1), { events: [testEvent('org_a')] });
    expect(stored.rev).toBe(1);
    const raw = await things.collection.findOne({ _id: 'th_001' as never });
    expect(raw).toMatchObject({ name_key: 'thing 1', rev: 1, _outbox_pending: true });
    expect(await things.findOne({ _id: 'th_001' })).toEqual({ ...thing(1), rev: 1 });
  });

  it('lets exactly one of 12 concurrent writers at one revision win; the others get WriteConflict', async () => {
    await things.insert(thing(2));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, n) => things.updateAtRevision({ _id: 'th_002' }, 1, { name: `Writer ${n}` })),
    );
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected' && outcome.reason instanceof WriteConflict)).toHaveLength(11);
    const stored = await things.findOne({ _id: 'th_002' });
    expect(stored?.rev).toBe(2);
    expect(stored?.name).toBe((won[0] as PromiseFulfilledResult<Thing>).value.name);
  });

  it('keeps every change of 20 concurrent read-modify-writes of one record (writeRevision retries the losers)', async () => {
    await things.insert(thing(3));
    await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        writeRevision({
          read: async () => (await things.findOne({ _id: 'th_003' }))!,
          plan: (current) => ({ set: { tags: [...current.tags, `tag-${n}`] } }),
          view: (next) => next,
          write: (current, set) => things.updateAtRevision({ _id: 'th_003' }, current.rev, set),
        }),
      ),
    );
    const stored = await things.findOne({ _id: 'th_003' });
    expect(stored?.tags.sort()).toEqual(Array.from({ length: 20 }, (_, n) => `tag-${n}`).sort());
    expect(stored?.rev).toBe(21);
  });

  it('pages through records with equal sort values exactly once, in order, both ways', async () => {
    const pages = new RecordStore<Thing>(storage, { model: 'PagedThing', schema: thingSchema().set('collection', 'paged'), what: 'thing' });
    const ties = [new Date(Date.UTC(2026, 0, 1)), new Date(Date.UTC(2026, 0, 2))];
    await Promise.all(Array.from({ length: 23 }, (_, n) => pages.insert({ ...thing(n), created_at: ties[n % 2]! })));
    for (const order of ['asc', 'desc'] as const) {
      const seen: Thing[] = [];
      let after;
      do {
        const page = await pages.listPage([{ org_id: 'org_a' }], { field: 'created_at', order, type: 'date' }, { limit: 5, after });
        seen.push(...page.items);
        after = page.next;
        // The position travels as JSON, as in a cursor.
        if (after) after = JSON.parse(JSON.stringify(after)) as typeof after;
      } while (after);
      const key = (record: Thing) => `${record.created_at.toISOString()}|${record.id}`;
      const expected = [...seen].sort((a, b) => (key(a) < key(b) ? -1 : 1));
      expect(seen.map(key)).toEqual((order === 'asc' ? expected : expected.reverse()).map(key));
      expect(new Set(seen.map((record) => record.id)).size).toBe(23);
    }
  });

  it('pages by an internal sort key: the page reads it for the next position, the records never show it nor the outbox', async () => {
    const named = new RevisionedRecords<Thing>(storage, {
      model: 'NamedThing',
      schema: thingSchema().set('collection', 'named'),
      what: 'thing',
      outbox: true,
      internal: ['name_key'],
      derive: (fields) => (fields.name ? { name_key: fields.name.toLowerCase() } : {}),
    });
    await named.model.init();
    const names = ['delta', 'Alpha', 'charlie', 'Bravo', 'echo'];
    for (const [n, name] of names.entries()) await named.insert({ ...thing(n), name }, { events: [testEvent('org_a')] });
    const seen: Array<Record<string, unknown>> = [];
    let after;
    do {
      const page = await named.listPage([{ org_id: 'org_a' }], { field: 'name_key', order: 'asc', type: 'string' }, { limit: 2, after });
      seen.push(...(page.items as unknown as Array<Record<string, unknown>>));
      after = page.next;
    } while (after);
    expect(seen.map((record) => record.name)).toEqual(['Alpha', 'Bravo', 'charlie', 'delta', 'echo']);
    for (const record of seen) expect(Object.keys(record).filter((key) => key === 'name_key' || key.startsWith('_'))).toEqual([]);
  });

  it('commits the writes of a transaction together or not at all, and wakes the relay only after the commit', async () => {
    const woken: string[] = [];
    const unsubscribe = storage.outbox.subscribe({
      owner: 'test',
      leaseMs: 60_000,
      written: ({ collection, id }) => void woken.push(`${collection}/${String(id)}`),
      holds: () => false,
    });
    try {
      await expect(
        storage.transaction(async (session) => {
          await things.insert(thing(10), { session, events: [testEvent('org_a')] });
          expect(woken).toEqual([]);
          await things.insert(thing(10), { session });
        }),
      ).rejects.toMatchObject({ code: 11000 });
      expect(await things.findOne({ _id: 'th_010' })).toBeNull();
      expect(woken).toEqual([]);

      await storage.transaction(async (session) => {
        await things.insert(thing(11), { session, events: [testEvent('org_a')] });
        await things.insert(thing(12), { session });
        expect(woken).toEqual([]);
      });
      expect(await things.findMany({ _id: { $in: ['th_011', 'th_012'] } })).toHaveLength(2);
      expect(woken).toEqual(['things/th_011']);
    } finally {
      unsubscribe();
    }
  });

  it('reads a page of a small set (`few`) in one find, the same page the windowed read gives', async () => {
    const schema = thingSchema().set('collection', 'few').index({ org_id: 1, created_at: -1, _id: -1 });
    const recent = new RecordStore<Thing>(storage, { model: 'FewThing', schema, what: 'thing' });
    await recent.model.init();
    await Promise.all([1, 2, 3].map((n) => recent.insert({ ...thing(n), created_at: new Date(Date.now() - n * 1_000) })));
    const read = async (few: boolean) => {
      const counted = withCommandCount(() =>
        recent.listPage(
          [{ org_id: 'org_a' }],
          { field: 'created_at', order: 'desc', type: 'date' },
          { limit: 20, after: undefined },
          { few },
        ),
      );
      const page = await counted.result;
      return { ids: page.items.map((record) => record.id), commands: counted.commands.filter((name) => name.startsWith('find:')).length };
    };
    const windowed = await read(false);
    expect(windowed.ids).toEqual(['th_001', 'th_002', 'th_003']);
    expect(await read(true)).toEqual({ ids: windowed.ids, commands: 1 });
  });

  it('reads a list that grew past the end it once had in bounded windows again', async () => {
    const schema = thingSchema().set('collection', 'grown').index({ org_id: 1, created_at: -1, _id: -1 });
    const grown = new RecordStore<Thing>(storage, { model: 'GrownThing', schema, what: 'thing' });
    await grown.model.init();
    const now = Date.now();
    const firstPage = async () => {
      const { result: page, commands } = await commandsSent(storage.connection.db!, () =>
        grown.listPage([{ org_id: 'org_a' }], { field: 'created_at', order: 'desc', type: 'date' }, { limit: 20, after: undefined }),
      );
      const filters = commands.flatMap((command) => (command.find === 'grown' ? [JSON.stringify(command.filter)] : []));
      return { ids: page.items.map((record) => record.id), filters };
    };
    await Promise.all([1, 2, 3].map((n) => grown.insert({ ...thing(n), created_at: new Date(now - n * 1_000) })));
    expect((await firstPage()).ids).toHaveLength(3);
    // Older records arrive (an import): the list now runs far past the end its short version showed.
    await Promise.all(
      Array.from({ length: 60 }, (_, n) => grown.insert({ ...thing(100 + n), created_at: new Date(now - (10 + n) * 60_000) })),
    );
    const newest = ['th_001', 'th_002', 'th_003', ...Array.from({ length: 17 }, (_, n) => `th_${100 + n}`)];
    expect((await firstPage()).ids).toEqual(newest);
    const again = await firstPage();
    expect(again.ids).toEqual(newest);
    expect(again.filters).toHaveLength(1);
    expect(again.filters[0]).toContain('"created_at"');
  });

  it('makes one record of 10 concurrent upserts of one unique key', async () => {
    const keyed = new RecordStore<{ id: string; org_id: string; hits: number }>(storage, {
      model: 'Keyed',
      schema: new Schema({ _id: String, org_id: String, hits: Number }, { versionKey: false, collection: 'keyed' }).index(
        { org_id: 1 },
        { unique: true },
      ),
      what: 'keyed record',
    });
    await keyed.model.init();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        keyed.update({ org_id: 'org_u' }, { $setOnInsert: { _id: `k_${n}` }, $inc: { hits: 1 } }, { upsert: true }),
      ),
    );
    expect(new Set(answers.map((answer) => answer?.id)).size).toBe(1);
    expect(await keyed.findMany({ org_id: 'org_u' })).toEqual([{ id: answers[0]!.id, org_id: 'org_u', hits: 10 }]);
  });
});
