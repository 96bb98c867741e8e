import { describe, expect, it } from 'vitest';
import { pageInfo } from './paging';

describe('pageInfo', () => {
  it('answers the total as counted while it covers the page', () => {
    expect(pageInfo({ items: [1, 2], total: 40, hasMore: true, next: { value: 2, id: 'b' } })).toEqual({
      total: 40,
      has_more: true,
      next: { value: 2, id: 'b' },
    });
  });

  it('never answers a cached total below the page: its items, and one more when it has more', () => {
    expect(pageInfo({ items: [1, 2, 3, 4], total: 3, hasMore: false, next: undefined }).total).toBe(4);
    expect(pageInfo({ items: [1, 2], total: 1, hasMore: true, next: { value: 2, id: 'b' } }).total).toBe(3);
  });
});
