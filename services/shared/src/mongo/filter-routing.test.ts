import { describe, expect, it } from 'vitest';
import { IndexPrefixes, idFirst } from './filter-routing';

const order = (filter: object) => JSON.stringify(filter);

describe('filters that name their documents by id', () => {
  it('sends _id alone at the top, every other condition in a nested $and', () => {
    const filter = { org_id: 'org_1', deleted_at: null, _id: 'ct_1' };
    expect(order(idFirst(filter))).toBe(order({ $and: [{ _id: 'ct_1' }, { $and: [{ org_id: 'org_1', deleted_at: null }] }] }));
    expect(order(idFirst({ _id: { $in: ['a', 'b'] }, org_id: 'org_1' }))).toBe(
      order({ $and: [{ _id: { $in: ['a', 'b'] } }, { $and: [{ org_id: 'org_1' }] }] }),
    );
  });

  it("takes _id out of its conjunct in a $and, the other conjuncts and the filter's other fields nested after it", () => {
    const lease = { $or: [{ lease: null }, { lease: { $lt: 5 } }] };
    expect(order(idFirst({ $and: [lease, { org_id: 'org_1', _id: 'm_1' }] }))).toBe(
      order({ $and: [{ _id: 'm_1' }, { $and: [{ org_id: 'org_1' }, lease] }] }),
    );
    expect(order(idFirst({ org_id: 'org_1', $and: [{ _id: 'm_1' }, lease] }))).toBe(
      order({ $and: [{ _id: 'm_1' }, { $and: [lease, { org_id: 'org_1' }] }] }),
    );
  });

  it('leaves a filter alone when _id is its only condition, it names no ids, or it is already shaped', () => {
    for (const filter of [
      { _id: 'ct_1' },
      { $and: [{ _id: 'ct_1' }] },
      { org_id: 'org_1', created_at: { $lt: new Date(0) } },
      { $and: [{ org_id: 'org_1' }, { x: 1 }] },
      // An _id it must not be names no document to read first.
      { org_id: 'org_1', _id: { $ne: 'ci_1' }, is_default: true },
    ]) {
      expect(idFirst(filter)).toBe(filter);
    }
    const shaped = idFirst({ _id: 'ct_1', org_id: 'org_1' });
    expect(idFirst(shaped)).toBe(shaped);
  });
});

describe('filters sent through the index that pins them', () => {
  const prefixes = new IndexPrefixes([
    ['org_id', 'deleted_at', 'created_at', '_id'],
    ['org_id', 'contact_id', 'channel', 'instance_id'],
    ['org_id', 'deal_id', 'deleted_at', 'created_at', '_id'],
  ]);

  it('reads a key with one more condition through the key', () => {
    const filter = { org_id: 'o', contact_id: 'c', channel: 'chat', instance_id: 'i', status: { $ne: 'open' } };
    expect(order(prefixes.route(filter))).toBe(
      order({ $and: [{ org_id: 'o', contact_id: 'c', channel: 'chat', instance_id: 'i' }, { $and: [{ status: { $ne: 'open' } }] }] }),
    );
  });

  it('takes a range on the field after the fixed ones', () => {
    const filter = { org_id: 'o', deleted_at: null, deal_id: { $in: ['d1', 'd2'] } };
    expect(order(prefixes.route(filter))).toBe(
      order({ $and: [{ org_id: 'o', deal_id: { $in: ['d1', 'd2'] } }, { $and: [{ deleted_at: null }] }] }),
    );
  });

  it('routes a $and of plain conjuncts as the store merges them: a list page of a conversation through its key', () => {
    const page = {
      $and: [
        { org_id: 'o', contact_id: 'c' },
        { channel: 'chat', instance_id: 'i', deleted_at: null },
      ],
    };
    expect(order(prefixes.route(page))).toBe(
      order({ $and: [{ org_id: 'o', contact_id: 'c', channel: 'chat', instance_id: 'i' }, { $and: [{ deleted_at: null }] }] }),
    );
    // A field in two conjuncts is left to the store, which reads the two as one condition.
    const twice = {
      $and: [
        { org_id: 'o', contact_id: 'c', channel: 'chat' },
        { channel: 'chat', instance_id: 'i' },
      ],
    };
    expect(prefixes.route(twice)).toBe(twice);
  });

  it('routes each plain conjunct of a $and that also holds operators, in place', () => {
    const after = { $or: [{ created_at: { $lt: new Date(0) } }] };
    const page = { $and: [{ org_id: 'o', contact_id: 'c', channel: 'chat', instance_id: 'i', deleted_at: null }, after] };
    expect(order(prefixes.route(page))).toBe(
      order({
        $and: [{ $and: [{ org_id: 'o', contact_id: 'c', channel: 'chat', instance_id: 'i' }, { $and: [{ deleted_at: null }] }] }, after],
      }),
    );
    // Already routed, or a window exactly on an index: as written.
    const routed = prefixes.route(page);
    expect(prefixes.route(routed)).toBe(routed);
    const windowed = { $and: [{ org_id: 'o', deleted_at: null, created_at: { $gte: new Date(0) } }, after] };
    expect(prefixes.route(windowed)).toBe(windowed);
  });

  it('leaves a filter that is exactly an index, or that no index pins beyond the organization', () => {
    const exact = { org_id: 'o', deleted_at: null };
    expect(prefixes.route(exact)).toBe(exact);
    const page = { org_id: 'o', deleted_at: null, created_at: { $lt: new Date(0) } };
    expect(prefixes.route(page)).toBe(page);
    const loose = { org_id: 'o', status: 'open' };
    expect(prefixes.route(loose)).toBe(loose);
    // A pattern or a list is no key the store reads an index by: it does not pin the contact_id.
    const pattern = { org_id: 'o', contact_id: /^c/, channel: 'chat', instance_id: 'i' };
    expect(prefixes.route(pattern)).toBe(pattern);
    const operators = { $or: [{ a: 1 }], org_id: 'o', contact_id: 'c' };
    expect(prefixes.route(operators)).toBe(operators);
  });
});
