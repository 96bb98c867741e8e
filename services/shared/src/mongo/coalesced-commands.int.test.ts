import { Schema } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStorage } from '../../../../test/support/integration';
import { isDuplicateKeyError } from './client';
import { CoalescedCommands } from './coalesced-commands';
import { withCommandCount } from './command-count';
import { RecordStore } from './record-store';
import type { Storage } from './storage';

interface Item {
  id: string;
  org_id: string;
  name: string;
  deleted_at: Date | null;
}

const itemSchema = () =>
  new Schema(
    {
      _id: { type: String, required: true },
      org_id: { type: String, required: true },
      name: { type: String, required: true },
      deleted_at: { type: Date, default: null },
    },
    { versionKey: false, collection: 'coalesced_items' },
  );

const item = (n: number, org = 'org_a'): Item => ({ id: `it_${n}`, org_id: org, name: `Item ${n}`, deleted_at: null });

describe('concurrent single-document commands on the real database server', () => {
  let storage: Storage;
  let items: RecordStore<Item>;
  beforeAll(async () => {
    storage = await testStorage('coalesced');
    items = new RecordStore<Item>(storage, { model: 'CoalescedItem', schema: itemSchema(), what: 'item' });
    await items.model.init();
  });
  afterAll(() => storage.close());

  it('sends ten inserts started together as one command; a duplicate fails its own caller alone', async () => {
    await items.insert(item(0));
    const counted = withCommandCount(() =>
      Promise.allSettled([item(0), ...Array.from({ length: 9 }, (_, n) => item(n + 1))].map((each) => items.insert(each))),
    );
    const outcomes = await counted.result;
    expect(counted.commands).toEqual(['insert:coalesced_items']);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(9);
    const [duplicate] = outcomes;
    expect(duplicate?.status === 'rejected' && isDuplicateKeyError(duplicate.reason)).toBe(true);
    expect(await items.count({ org_id: 'org_a' })).toBe(10);
  });

  it('sends reads by id under the same conditions as one find, each caller its own answer', async () => {
    await items.insert({ ...item(20, 'org_b'), deleted_at: new Date() });
    const live = (id: string, org = 'org_a') => items.findOne({ _id: id, org_id: org, deleted_at: null });
    const counted = withCommandCount(() =>
      Promise.all([live('it_1'), live('it_2'), live('it_2'), live('it_missing'), live('it_1', 'org_b'), live('it_20', 'org_b')]),
    );
    const [one, two, twoAgain, missing, otherOrg, deleted] = await counted.result;
    // Two shapes of condition (two organizations): two commands, not six.
    expect(counted.commands).toEqual(['find:coalesced_items', 'find:coalesced_items']);
    expect(one).toEqual(item(1));
    expect(two).toEqual(item(2));
    expect(twoAgain).toEqual(item(2));
    expect(twoAgain).not.toBe(two);
    expect([missing, otherOrg, deleted]).toEqual([null, null, null]);
  });

  it('reads with other shapes of filter alone, as before', async () => {
    const counted = withCommandCount(() =>
      Promise.all([
        items.findOne({ _id: { $in: ['it_3'] } }),
        items.findOne({ org_id: 'org_a', name: 'Item 4' }),
        items.findOne({ _id: 'it_5' }),
      ]),
    );
    const [three, four, five] = await counted.result;
    expect([three?.id, four?.id, five?.id]).toEqual(['it_3', 'it_4', 'it_5']);
    expect(counted.commands).toHaveLength(3);
  });

  it('sends updates without an answer started together as one command, each applied to its own document', async () => {
    const at = new Date(Date.UTC(2026, 10, 26));
    const counted = withCommandCount(() =>
      Promise.all([
        items.updateBeside({ _id: 'it_6', org_id: 'org_a' }, { $set: { name: 'Six' } }),
        items.updateBeside({ _id: 'it_7', org_id: 'org_a' }, { $max: { deleted_at: at } }),
        items.updateBeside({ _id: 'it_8', org_id: 'org_b' }, { $set: { name: 'not this organization' } }),
        items.updateBeside({ _id: 'it_missing' }, { $set: { name: 'nobody' } }),
      ]),
    );
    await counted.result;
    expect(counted.commands).toEqual(['update:coalesced_items']);
    expect(await items.findOne({ _id: 'it_6' })).toEqual({ ...item(6), name: 'Six' });
    expect(await items.findOne({ _id: 'it_7' })).toEqual({ ...item(7), deleted_at: at });
    expect(await items.findOne({ _id: 'it_8' })).toEqual(item(8));
    expect(await items.findOne({ _id: 'it_missing' })).toBeNull();
  });

  it('sends updates started together as one command; an update that fails fails its own caller alone', async () => {
    const collection = storage.connection.db!.collection('coalesced_updates');
    await collection.insertMany([0, 1, 2].map((n) => ({ _id: `up_${n}` as unknown as never, n, state: 'running' })));
    const commands = new CoalescedCommands(collection);
    const counted = withCommandCount(() =>
      Promise.allSettled([
        commands.updateOne({ _id: 'up_0' }, { $set: { state: 'done' } }),
        commands.updateOne({ _id: 'up_1' }, { $set: { state: 'done' } }),
        // Not a number: the server refuses this one alone.
        commands.updateOne({ _id: 'up_2' }, { $inc: { state: 1 } }),
        commands.updateOne({ _id: 'up_missing' }, { $set: { state: 'done' } }),
      ]),
    );
    const outcomes = await counted.result;
    expect(counted.commands).toEqual(['update:coalesced_updates']);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const stored = await collection.find({}, { sort: { _id: 1 } }).toArray();
    expect(stored.map((doc) => doc.state)).toEqual(['done', 'done', 'running']);
  });
});
