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
  /** The filter the last `command` on items carried. */
  const lastFilter = (command: string, filterOf: (body: Document) => Document | undefined) => {
    const body = sent.filter((event) => event.command[command] === 'items').at(-1)?.command;
    return body ? filterOf(body) : undefined;
  };
  /** Its keys, in the order sent. */
  const lastFilterKeys = (command: string, filterOf: (body: Document) => Document | undefined) =>
    Object.keys(lastFilter(command, filterOf) ?? {});
  /** What a filter of `_id` and the organization is sent as. */
  const byId = (id: string) => ({ $and: [{ _id: id }, { $and: [{ org_id: 'org_a' }] }] });

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

  it('reads, updates and aggregates by id with _id alone at the top of the filter, answering as before', async () => {
    expect(await items.findOne({ org_id: 'org_a', _id: 'it_2' }, { created_at: 1 })).toEqual(item(2));
    expect(lastFilter('find', (body) => body.filter)).toEqual(byId('it_2'));
    expect(await items.findOne({ org_id: 'org_b', _id: 'it_2' })).toBeNull();

    expect(await items.update({ org_id: 'org_a', _id: 'it_2' }, { name: 'Renamed' })).toMatchObject({ name: 'Renamed' });
    expect(lastFilter('findAndModify', (body) => body.query)).toEqual(byId('it_2'));

    const [counted] = await items.model.aggregate<{ n: number }>([{ $match: { org_id: 'org_a', _id: 'it_3' } }, { $count: 'n' }]);
    expect(counted).toEqual({ n: 1 });
    expect(lastFilter('aggregate', (body) => (body.pipeline as Document[])[0]?.$match)).toEqual(byId('it_3'));

    await items.updateBeside({ org_id: 'org_a', _id: 'it_1' }, { $set: { name: 'Beside' } });
    expect(lastFilter('update', (body) => (body.updates as Document[])[0]?.q)).toEqual(byId('it_1'));
    expect(await items.findOne({ _id: 'it_1' })).toMatchObject({ name: 'Beside' });
  });

  it('upserts by id with the nested conditions on the new record', async () => {
    const created = await items.update(
      { org_id: 'org_a', _id: 'it_7' },
      { $set: { name: 'Upserted' }, $setOnInsert: { created_at: new Date(Date.UTC(2026, 1, 2)) } },
      { upsert: true },
    );
    expect(lastFilter('findAndModify', (body) => body.query)).toEqual(byId('it_7'));
    expect(created).toMatchObject({ id: 'it_7', org_id: 'org_a', name: 'Upserted' });
    expect(await items.findOne({ org_id: 'org_a', _id: 'it_7' })).toMatchObject({ name: 'Upserted' });
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

  it('reads a small list whose conditions pin a key and one more field through the key', async () => {
    const routes = storage.store?.routesByLeadingFields === true;
    await items.update({ _id: 'it_2' }, { $set: { kind: 'm', status: 'open' } });
    await items.update({ _id: 'it_3' }, { $set: { kind: 'm', status: 'closed' } });
    const order = { field: 'created_at', order: 'desc' as const, type: 'date' as const };
    const page = await items.listPage(
      [{ org_id: 'org_a', kind: 'm', status: 'open' }],
      order,
      { limit: 10, after: undefined },
      { few: true },
    );
    expect(page.items.map((found) => found.id)).toEqual(['it_2']);
    // As one plain conjunct the store read the organization's range; through the key it reads the kind's.
    expect(lastFilter('find', (body) => body.filter)).toEqual(
      routes
        ? { $and: [{ org_id: 'org_a', kind: 'm' }, { $and: [{ status: 'open' }] }] }
        : { $and: [{ org_id: 'org_a', kind: 'm', status: 'open' }] },
    );
  });

  it("shapes a hand-written driver filter with the indexes of the collection's model", async () => {
    const routes = storage.store?.routesByLeadingFields === true;
    const filter = { org_id: 'org_a', kind: 'k', name: 'Keyed', status: 'open' };
    const shaped = routedFilter(storage.connection, 'items', filter);
    expect(shaped).toEqual(routes ? { $and: [{ org_id: 'org_a', kind: 'k', name: 'Keyed' }, { $and: [{ status: 'open' }] }] } : filter);
    expect(await items.collection.countDocuments(shaped)).toBe(1);
    // A collection no model of the connection names: only the shape by id.
    expect(routedFilter(storage.connection, 'elsewhere', { org_id: 'org_a', _id: 'x' })).toEqual(byId('x'));
  });
});
