import {
  connectStorage,
  createStorage,
  type KeysetPosition,
  type PageOrder,
  RevisionedRecords,
  type Storage,
  type StoreFilter,
} from '@crm/shared';
import { Schema } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSystem } from '../support/system';

/**
 * The storage kit's keyset pages on the real server. On SecantusDB a page is read in windows of its sort key
 * (services/shared/src/mongo/list-window.ts); the same pages read with one plain keyset query (as on MongoDB) must be
 * identical, row for row, whatever the spacing of the values — bursts, gaps, ties — and rows inserted while a
 * client pages must never make it skip or repeat a row that was there when it started.
 */
interface Row {
  id: string;
  org_id: string;
  name: string;
  seq: number;
  tags: string[];
  created_at: Date;
  deleted_at: Date | null;
}

const schema = () => {
  const rows = new Schema(
    {
      _id: String,
      org_id: String,
      name: String,
      name_key: String,
      seq: Number,
      tags: [String],
      created_at: Date,
      deleted_at: { type: Date, default: null },
    },
    { versionKey: false, collection: 'rows' },
  );
  rows.index({ org_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
  rows.index({ org_id: 1, deleted_at: 1, name_key: 1, _id: 1 });
  rows.index({ org_id: 1, deleted_at: 1, tags: 1, created_at: -1, _id: -1 });
  rows.index({ org_id: 1, seq: 1 }, { unique: true });
  return rows;
};

const recordsOf = (storage: Storage) =>
  new RevisionedRecords<Row>(storage, {
    model: 'Row',
    schema: schema(),
    what: 'row',
    internal: ['name_key'],
    derive: (fields) => (typeof fields.name === 'string' ? { name_key: fields.name.toLowerCase() } : {}),
    deriveVersion: 'name-key-1',
  });

const WORDS = ['ada', 'Alan', 'grace', 'Linus', 'margaret', 'Émile', 'zoë', 'bob', 'Bob', 'ñandú', '山田'];
const live = (orgId: string): StoreFilter => ({ org_id: orgId, deleted_at: null });
let seq = 0;

/** Rows in bursts (many in one millisecond), gaps of days, and plain spacing, with repeated names. */
function makeRows(orgId: string, count: number, start: number): Row[] {
  const rows: Row[] = [];
  let at = start;
  for (let i = 0; i < count; i++) {
    at += i % 200 < 60 ? 0 : i % 500 === 0 ? 5 * 86_400_000 : 1_000 + (i % 7) * 60_000;
    rows.push({
      id: `rw_${orgId}_${String(i).padStart(6, '0')}_${Math.random().toString(36).slice(2, 8)}`,
      org_id: orgId,
      name: `${WORDS[i % WORDS.length]} ${i % 13}`,
      seq: ++seq,
      tags: i % 10 === 0 ? ['vip'] : [],
      created_at: new Date(at),
      deleted_at: i % 50 === 7 ? new Date(at) : null,
    });
  }
  return rows;
}

async function listAll(
  records: RevisionedRecords<Row>,
  conditions: StoreFilter[],
  order: PageOrder,
  limit: number,
  between?: () => Promise<void>,
): Promise<string[]> {
  const ids: string[] = [];
  let after: KeysetPosition | undefined;
  do {
    const page = await records.listPage(conditions, order, { limit, after });
    ids.push(...page.items.map((row) => row.id));
    after = page.next;
    await between?.();
  } while (after && ids.length < 100_000);
  return ids;
}

/** Counts the `find` commands a storage sends until stopped. */
function countFinds(storage: Storage): { stop(): number } {
  let finds = 0;
  const client = storage.connection.getClient();
  const count = (event: { commandName: string }) => void (event.commandName === 'find' && finds++);
  client.on('commandStarted', count);
  return {
    stop: () => {
      client.off('commandStarted', count);
      return finds;
    },
  };
}

describe('keyset pages read in windows', () => {
  let windowed: Storage;
  let plainConnection: Storage;
  let windowedRows: RevisionedRecords<Row>;
  let plainRows: RevisionedRecords<Row>;
  const dbName = `${testSystem().env.CRM_DB_NAME}_windows`;
  const all: Row[] = [];

  beforeAll(async () => {
    windowed = await connectStorage(testSystem().env.MONGODB_URI ?? '', dbName, { monitorCommands: true });
    const other = await connectStorage(testSystem().env.MONGODB_URI ?? '', dbName, { monitorCommands: true });
    // The same server read as MongoDB is: one plain keyset query per page.
    plainConnection = createStorage(other.connection, other.store && { ...other.store, readsWholeMatch: false });
    windowedRows = recordsOf(windowed);
    plainRows = recordsOf(plainConnection);
    await windowedRows.model.init();
    all.push(...makeRows('org_a', 2_500, Date.UTC(2025, 0, 1)), ...makeRows('org_b', 300, Date.UTC(2025, 0, 1)));
    await windowedRows.importMany(all);
  });

  afterAll(async () => {
    await windowed.connection.dropDatabase();
    await Promise.all([windowed.close(), plainConnection.close()]);
  });

  it('reads windows on this server and plain queries on the other storage', () => {
    expect(windowed.store?.readsWholeMatch).toBe(windowed.store?.server === 'SecantusDB');
    expect(plainConnection.store?.readsWholeMatch).toBe(false);
  });

  const expected = (filter: (row: Row) => boolean, compare: (a: Row, b: Row) => number) =>
    all
      .filter(filter)
      .sort(compare)
      .map((row) => row.id);
  const byIdIn = (direction: number) => (a: Row, b: Row) => direction * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const byDate = (direction: number) => (a: Row, b: Row) =>
    direction * (a.created_at.getTime() - b.created_at.getTime()) || byIdIn(direction)(a, b);
  const byName = (direction: number) => (a: Row, b: Row) => {
    const [x, y] = [a.name.toLowerCase(), b.name.toLowerCase()];
    return direction * (x < y ? -1 : x > y ? 1 : 0) || byIdIn(direction)(a, b);
  };
  const liveOf = (orgId: string) => (row: Row) => row.org_id === orgId && row.deleted_at === null;

  it.each([
    { what: 'newest first', order: { field: 'created_at', order: 'desc', type: 'date' }, compare: byDate(-1), limit: 25 },
    { what: 'oldest first', order: { field: 'created_at', order: 'asc', type: 'date' }, compare: byDate(1), limit: 40 },
    { what: 'by name', order: { field: 'name_key', order: 'asc', type: 'string' }, compare: byName(1), limit: 25 },
    { what: 'by name, descending', order: { field: 'name_key', order: 'desc', type: 'string' }, compare: byName(-1), limit: 7 },
  ] as const)('pages $what exactly as one plain query per page does', async ({ order, compare, limit }) => {
    const want = expected(liveOf('org_a'), compare);
    // Twice: the first walk learns the list's spacing, the second uses it — mostly one command a page.
    expect(await listAll(windowedRows, [live('org_a')], order, limit)).toEqual(want);
    const finds = countFinds(windowed);
    expect(await listAll(windowedRows, [live('org_a')], order, limit)).toEqual(want);
    if (windowed.store?.readsWholeMatch) expect(finds.stop() / Math.ceil(want.length / limit)).toBeLessThan(1.6);
    expect(await listAll(plainRows, [live('org_a')], order, limit)).toEqual(want);
  });

  it('pages a tag, and a unique number, the same way', async () => {
    const tagged = expected((row) => liveOf('org_a')(row) && row.tags.includes('vip'), byDate(-1));
    const order = { field: 'created_at', order: 'desc', type: 'date' } as const;
    expect(await listAll(windowedRows, [live('org_a'), { tags: 'vip' }], order, 10)).toEqual(tagged);
    const bySeq = expected(
      (row) => row.org_id === 'org_b',
      (a, b) => a.seq - b.seq,
    );
    const seqOrder = { field: 'seq', order: 'asc', type: 'number', unique: true } as const;
    for (let walk = 0; walk < 2; walk++) expect(await listAll(windowedRows, [{ org_id: 'org_b' }], seqOrder, 30)).toEqual(bySeq);
  });

  it('neither skips nor repeats a row while rows are inserted between pages', async () => {
    const order = { field: 'created_at', order: 'desc', type: 'date' } as const;
    const before = new Set(expected(liveOf('org_a'), byDate(-1)));
    const inserted: Row[] = [];
    let page = 0;
    const insertSome = async () => {
      // Newer than everything, at the very instant of existing rows (ties), and older than everything.
      const existing = all.filter(liveOf('org_a'));
      const at = [new Date(), existing[(page * 37) % existing.length]!.created_at, new Date(Date.UTC(2020, 0, 1))];
      const rows = at.map((created_at, i) => ({ ...makeRows('org_a', 1, 0)[0]!, id: `rw_new_${page}_${i}`, created_at, deleted_at: null }));
      page++;
      inserted.push(...rows);
      await windowedRows.importMany(rows);
    };
    const seen = await listAll(windowedRows, [live('org_a')], order, 25, insertSome);
    expect(new Set(seen).size, 'no row twice').toBe(seen.length);
    expect(
      [...before].filter((id) => !seen.includes(id)),
      'every row of before is seen',
    ).toEqual([]);
    expect(seen.filter((id) => !before.has(id)).every((id) => inserted.some((row) => row.id === id))).toBe(true);
    all.push(...inserted);
  });

  it('refreshes derived keys of records stored without them, once per version, from several processes at once', async () => {
    const raw = windowedRows.collection;
    await raw.updateMany({ org_id: 'org_b' }, { $unset: { name_key: '' } });
    await windowed.connection.collection('derived_field_passes').deleteMany({});
    const [first, second] = await Promise.all([windowedRows.refreshDerived(50), plainRows.refreshDerived(50)]);
    expect(first + second).toBeGreaterThanOrEqual(300);
    expect(await raw.countDocuments({ name_key: { $exists: false } })).toBe(0);
    const sample = await raw.findOne({ org_id: 'org_b' });
    expect(sample?.name_key).toBe(String(sample?.name).toLowerCase());
    // Nothing left: this pass marks the version done, and the next start does not walk again.
    expect(await windowedRows.refreshDerived(50)).toBe(0);
    expect(await windowed.connection.collection('derived_field_passes').countDocuments()).toBe(1);
    await raw.updateOne({ org_id: 'org_b' }, { $unset: { name_key: '' } });
    expect(await windowedRows.refreshDerived(50)).toBe(0);
  });
});
