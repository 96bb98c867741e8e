import { describe, expect, it } from 'vitest';
import { leadingShape } from './list-window';
import { axisOf } from './window-axis';

const INDEXES = [
  ['org_id', 'deleted_at', 'created_at', '_id'],
  ['org_id', 'deleted_at', 'name_key', '_id'],
  ['org_id', 'deleted_at', 'tags', 'created_at', '_id'],
  ['org_id', 'company_id'],
];
const live = { org_id: 'org_1', deleted_at: null };

describe('the leading conjunct of a windowed page', () => {
  it('takes the equalities of the index the sort key follows', () => {
    expect(leadingShape([live, { source: 'api' }], 'created_at', INDEXES)).toEqual({
      leading: live,
      rest: [{ source: 'api' }],
      windowable: true,
    });
    expect(leadingShape([live], 'name_key', INDEXES).windowable).toBe(true);
  });

  it('prefers an index that pins more equalities, unwindowed when the sort key does not follow them', () => {
    expect(leadingShape([live, { tags: 'vip' }, { phone: { $ne: null } }], 'created_at', INDEXES)).toEqual({
      leading: { ...live, tags: 'vip' },
      rest: [{ phone: { $ne: null } }],
      windowable: true,
    });
    expect(leadingShape([live, { tags: 'vip' }], 'name_key', INDEXES)).toMatchObject({
      leading: { ...live, tags: 'vip' },
      windowable: false,
    });
  });

  it('keeps a second value of one field, and operators, in the rest', () => {
    const shape = leadingShape([live, { tags: 'a' }, { tags: 'b' }, { $or: [{ x: 1 }] }], 'created_at', INDEXES);
    expect(shape.leading).toEqual({ ...live, tags: 'a' });
    expect(shape.rest).toEqual([{ tags: 'b' }, { $or: [{ x: 1 }] }]);
  });

  it('walks a whole collection by _id', () => {
    expect(leadingShape([], '_id', INDEXES)).toEqual({ leading: {}, rest: [], windowable: true });
  });
});

describe('window axes', () => {
  it('measures and steps dates and numbers', () => {
    const dates = axisOf('date');
    expect(dates.distance(new Date(1_000), '1970-01-01T00:00:03.000Z')).toBe(2_000);
    expect(dates.offset(new Date(10_000), 4_000, -1)).toEqual(new Date(6_000));
    expect(dates.offset(new Date(0), 1e16, 1)).toBeUndefined();
    expect(axisOf('number').offset(10, 5, 1)).toBe(15);
  });

  it('orders strings as the store does, by code point, and steps them roughly', () => {
    const strings = axisOf('string');
    const after = strings.offset('ada', strings.distance('ada', 'adz'), 1) as string;
    expect(after >= 'adz').toBe(true);
    expect(after < 'ae').toBe(true);
    expect(strings.distance('seeded contact 10', 'seeded contact 11')).toBeGreaterThan(0);
    expect(strings.offset('a', strings.initial * 1e6, -1)).toBeUndefined();
    expect(strings.offset('ct_0', 1, 1)).toMatch(/^ct_0/);
  });
});
