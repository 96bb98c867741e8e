import type { Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStorage } from '../../../../test/support/integration';
import { withCommandCount } from './command-count';
import { findDocuments } from './find-documents';
import type { Storage } from './storage';

const ROWS = 250;

describe('findDocuments on the real database server', () => {
  let storage: Storage;
  let db: Db;
  beforeAll(async () => {
    storage = await testStorage('find-documents');
    db = storage.connection.db!;
    await db.collection('rows').deleteMany({});
    await db.collection('rows').insertMany(
      Array.from({ length: ROWS }, (_, n) => ({
        _id: `row_${String(n).padStart(3, '0')}` as never,
        n,
        even: n % 2 === 0,
        at: new Date(n),
      })),
    );
  });
  afterAll(() => storage.close());

  /** The commands a read sent, named `<command>:<collection>` (getMore names none). */
  const commandsOf = async (read: () => Promise<unknown>) => {
    const counted = withCommandCount(read);
    await counted.result;
    return counted.commands;
  };

  it('reads every match past the first batch, with getMore', async () => {
    let rows: unknown[] = [];
    const commands = await commandsOf(async () => (rows = await findDocuments(db, 'rows', {}, { sort: { n: 1 } })));
    expect(rows).toHaveLength(ROWS);
    expect(rows.map((row) => (row as { n: number }).n)).toEqual(Array.from({ length: ROWS }, (_, n) => n));
    expect(commands[0]).toBe('find:rows');
    expect(commands.slice(1).every((name) => name === 'getMore')).toBe(true);
    expect(commands.length).toBeGreaterThan(1);
  });

  it('answers a limited read in one command, sorted, filtered and projected, with values of their stored types', async () => {
    let rows: unknown[] = [];
    const commands = await commandsOf(
      async () => (rows = await findDocuments(db, 'rows', { even: true }, { sort: { n: -1 }, limit: 120, projection: { even: 0 } })),
    );
    expect(commands).toEqual(['find:rows']);
    expect(rows).toHaveLength(120);
    expect(rows[0]).toEqual({ _id: 'row_248', n: 248, at: new Date(248) });
    expect(rows[119]).toEqual({ _id: 'row_010', n: 10, at: new Date(10) });
  });

  it('goes on with getMore when the batch of a limited read is cut short by the reply size limit: nothing left out', async () => {
    // 20 documents of ~1 MB each: more than one 16 MB reply holds.
    const large = db.collection('large_rows');
    await large.deleteMany({});
    const filler = 'x'.repeat(1_000_000);
    await large.insertMany(Array.from({ length: 20 }, (_, n) => ({ _id: `large_${String(n).padStart(2, '0')}` as never, n, filler })));
    let rows: Array<{ n: number }> = [];
    const commands = await commandsOf(
      async () => (rows = (await findDocuments(db, 'large_rows', {}, { sort: { n: 1 }, limit: 20 })) as never),
    );
    expect(rows.map((row) => row.n)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(commands[0]).toBe('find:large_rows');
    expect(commands.slice(1).length).toBeGreaterThan(0);
    expect(commands.slice(1).every((name) => name === 'getMore')).toBe(true);
  });

  it('reads inside a transaction what the transaction wrote and no one else sees yet', async () => {
    const rolledBack = storage.transaction(async (session) => {
      await db.collection('rows').insertOne({ _id: 'row_new' as never, n: ROWS, even: true, at: new Date(ROWS) }, { session });
      expect(await findDocuments(db, 'rows', { _id: 'row_new' }, { limit: 1, session })).toHaveLength(1);
      expect(await findDocuments(db, 'rows', { _id: 'row_new' }, { limit: 1 })).toHaveLength(0);
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    expect(await findDocuments(db, 'rows', { _id: 'row_new' })).toHaveLength(0);
  });
});
