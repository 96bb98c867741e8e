import type { CommandStartedEvent, Document } from 'mongodb';
import { Schema } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStorage } from '../../../../test/support/integration';
import { routedFilter } from './filter-routing';
import { RecordStore } from './record-store';
import type { Storage } from './storage';

interface Item {
  id: string;
  org_id: string;
  name: string;
  created_at: Date;
  kind?: string;
  status?: string;
}

const itemSchema = () => {
  const schema = new Schema(
    {
      _id: { type: String, required: true },
      org_id: { type: String, required: true },
      name: { type: String, required: true },
      created_at: { type: Date, required: true },
      kind: { type: String },
      status: { type: String },
    },
    { versionKey: false, collection: 'items', minimize: false },
  );
  schema.index({ org_id: 1, created_at: -1, _id: -1 });
  schema.index({ org_id: 1, kind: 1, name: 1 });
  return schema;
};

const item = (n: number): Item => ({ id: `it_${n}`, org_id: 'org_a', name: `Item ${n}`, created_at: new Date(Date.UTC(2026, 0, n)) });

describe('filters reach the database server shaped for its router', () => {
  let storage: Storage;
  let items: RecordStore<Item>;
  const sent: CommandStartedEvent[] = [];
  const watch = (event: CommandStartedEvent) => sent.push(event);
  /** The keys of the filter the last `command` on items carried, in the order sent. */
  const lastFilterKeys = (command: string, filterOf: (body: Document) => Document | undefined) => {
    const body = sent.filter((event) => event.command[command] === 'items').at(-1)?.command;
    return body ? Object.keys(filterOf(body) ?? {}) : undefined;
  };

  beforeAll(async () => {
    storage = await testStorage('filters');
    items = new RecordStore<Item>(storage, { model: 'Item', schema: itemSchema(), what: 'item' });
    await items.model.init();
    for (const n of [1, 2, 3]) await items.insert(item(n));
    storage.connection.getClient().on('commandStarted', watch);
  });
  afterAll(async () => {
    storage.connection.getClient().off('commandStarted', watch);
    await storage.close();
  });

  it('reads, updates and aggregates by id with _id leading the filter, answering as before', async () => {
    expect(await items.findOne({ org_id: 'org_a', _id: 'it_2' }, { created_at: 1 })).toEqual(item(2));
    expect(lastFilterKeys('find', (body) => body.filter)).toEqual(['_id', 'org_id']);

    expect(await items.update({ org_id: 'org_a', _id: 'it_2' }, { name: 'Renamed' })).toMatchObject({ name: 'Renamed' });
    expect(lastFilterKeys('findAndModify', (body) => body.query)).toEqual(['_id', 'org_id']);

    const [counted] = await items.model.aggregate<{ n: number }>([{ $match: { org_id: 'org_a', _id: 'it_3' } }, { $count: 'n' }]);
    expect(counted).toEqual({ n: 1 });
    expect(lastFilterKeys('aggregate', (body) => (body.pipeline as Document[])[0]?.$match)).toEqual(['_id', 'org_id']);

    await items.updateBeside({ org_id: 'org_a', _id: 'it_1' }, { $set: { name: 'Beside' } });
    expect(lastFilterKeys('update', (body) => (body.updates as Document[])[0]?.q)).toEqual(['_id', 'org_id']);
    expect(await items.findOne({ _id: 'it_1' })).toMatchObject({ name: 'Beside' });
  });

  it('leaves a filter that no index pins beyond the organization as written', async () => {
    expect((await items.findMany({ org_id: 'org_a', name: 'Item 3' })).map((found) => found.id)).toEqual(['it_3']);
    expect(lastFilterKeys('find', (body) => body.filter)).toEqual(['org_id', 'name']);
  });

  it('sends a key with one more condition through the key on a store that routes by leading fields, upserts included', async () => {
    const routes = storage.store?.routesByLeadingFields === true;
    const key = { org_id: 'org_a', kind: 'k', name: 'Keyed' };
    const created = await items.update(
      { ...key, status: { $ne: 'open' } },
      { $set: { status: 'open' }, $setOnInsert: { _id: 'it_9', created_at: new Date(Date.UTC(2026, 1, 1)) } },
      { upsert: true },
    );
    // The upsert took the key's fields from the filter, as from the plain one.
    expect(created).toMatchObject({ id: 'it_9', ...key, status: 'open' });
    const sentUpsert = sent.filter((event) => event.command.findAndModify === 'items').at(-1)?.command.query as Document;
    expect(Object.keys(sentUpsert)).toEqual(routes ? ['$and'] : ['org_id', 'kind', 'name', 'status']);
    if (routes) expect(sentUpsert.$and).toEqual([{ org_id: 'org_a', kind: 'k', name: 'Keyed' }, { $and: [{ status: { $ne: 'open' } }] }]);

    expect(await items.findOne({ ...key, status: 'open' })).toMatchObject({ id: 'it_9' });
    expect(await items.findOne({ ...key, status: 'closed' })).toBeNull();
  });

  it("shapes a hand-written driver filter with the indexes of the collection's model", async () => {
    const routes = storage.store?.routesByLeadingFields === true;
    const filter = { org_id: 'org_a', kind: 'k', name: 'Keyed', status: 'open' };
    const shaped = routedFilter(storage.connection, 'items', filter);
    expect(shaped).toEqual(routes ? { $and: [{ org_id: 'org_a', kind: 'k', name: 'Keyed' }, { $and: [{ status: 'open' }] }] } : filter);
    expect(await items.collection.countDocuments(shaped)).toBe(1);
    // A collection no model of the connection names: only _id first.
    expect(Object.keys(routedFilter(storage.connection, 'elsewhere', { org_id: 'org_a', _id: 'x' }))).toEqual(['_id', 'org_id']);
  });
});
