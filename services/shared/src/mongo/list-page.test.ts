import { describe, expect, it } from 'vitest';
import { keysetQuery, toPage } from './list-page';

describe('keyset pages', () => {
  it('orders by the field then _id, and starts after the position', () => {
    const after = { value: '2026-01-02T00:00:00.000Z', id: 'ct_b' };
    const at = new Date(after.value);
    const { filter, sort } = keysetQuery([{ org_id: 'org_1' }], { field: 'created_at', order: 'desc', type: 'date' }, after);
    expect(sort).toEqual({ created_at: -1, _id: -1 });
    expect(filter).toEqual({
      $and: [
        { org_id: 'org_1' },
        { created_at: { $lte: at } },
        { $or: [{ created_at: { $lt: at } }, { created_at: at, _id: { $lt: 'ct_b' } }] },
      ],
    });
  });

  it('reads the position by its type, and orders by a unique field alone', () => {
    const { filter, sort } = keysetQuery(
      [{ b: 1 }],
      { field: 'seq', order: 'asc', type: 'number', unique: true },
      { value: '7', id: 'r_7' },
    );
    expect(sort).toEqual({ seq: 1 });
    expect(filter).toEqual({ $and: [{ b: 1 }, { seq: { $gte: 7 } }, { seq: { $gt: 7 } }] });
  });

  it('takes the first page without a position', () => {
    expect(keysetQuery([{ b: 1 }], { field: 'name', order: 'asc', type: 'string' }, undefined).filter).toEqual({ $and: [{ b: 1 }] });
  });

  it('cuts limit + 1 rows to a page and gives the position of its last row, a date as its ISO string', () => {
    const rows = [1, 2, 3].map((n) => ({ _id: `x_${n}`, at: new Date(Date.UTC(2026, 0, n)) }));
    expect(toPage(rows, 2, 'at')).toEqual({
      items: rows.slice(0, 2),
      hasMore: true,
      next: { value: '2026-01-02T00:00:00.000Z', id: 'x_2' },
    });
    expect(toPage(rows, 3, 'at')).toEqual({ items: rows, hasMore: false, next: undefined });
  });
});
