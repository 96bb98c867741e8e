import { describe, expect, it } from 'vitest';
import { idFirst } from './id-first';

const order = (filter: object) => JSON.stringify(filter);

describe('filters sent with _id first', () => {
  it('moves _id to the front, keeping every condition', () => {
    const filter = { org_id: 'org_1', deleted_at: null, _id: 'ct_1' };
    expect(order(idFirst(filter))).toBe(order({ _id: 'ct_1', org_id: 'org_1', deleted_at: null }));
    expect(order(idFirst({ org_id: 'org_1', _id: { $in: ['a', 'b'] } }))).toBe(order({ _id: { $in: ['a', 'b'] }, org_id: 'org_1' }));
  });

  it('puts the conjunct holding _id first in a $and, the filter\'s other fields after the conjuncts', () => {
    const lease = { $or: [{ lease: null }, { lease: { $lt: 5 } }] };
    expect(order(idFirst({ $and: [lease, { org_id: 'org_1', _id: 'm_1' }] }))).toBe(
      order({ $and: [{ _id: 'm_1', org_id: 'org_1' }, lease] }),
    );
    expect(order(idFirst({ org_id: 'org_1', $and: [{ _id: 'm_1' }, lease] }))).toBe(
      order({ $and: [{ _id: 'm_1' }, lease, { org_id: 'org_1' }] }),
    );
  });

  it('leaves a filter alone when _id leads or is not in it', () => {
    const led = { _id: 'ct_1', org_id: 'org_1' };
    expect(idFirst(led)).toBe(led);
    const page = { org_id: 'org_1', created_at: { $lt: new Date(0) } };
    expect(idFirst(page)).toBe(page);
    const and = { $and: [{ _id: 'a', org_id: 'org_1' }, { x: 1 }] };
    expect(idFirst(and)).toBe(and);
    const noId = { $and: [{ org_id: 'org_1' }, { x: 1 }] };
    expect(idFirst(noId)).toBe(noId);
  });
});
