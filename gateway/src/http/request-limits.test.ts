import { describe, expect, it } from 'vitest';
import { checkQuery, jsonDepthExceeds } from './request-limits';

describe('query limits', () => {
  const limits = { maxLength: 20, maxParams: 3 };
  it('passes a short query and a URL without one', () => {
    expect(() => checkQuery('/v1/contacts?limit=5&a=1', limits)).not.toThrow();
    expect(() => checkQuery('/v1/contacts', limits)).not.toThrow();
  });
  it('refuses a query longer than the limit or with too many parameters: 414 URI_TOO_LONG', () => {
    expect(() => checkQuery(`/v1/contacts?q=${'x'.repeat(19)}`, limits)).toThrow(
      expect.objectContaining({ code: 'URI_TOO_LONG', httpStatus: 414 }),
    );
    expect(() => checkQuery('/v1/contacts?a&b&c&d', limits)).toThrow(expect.objectContaining({ code: 'URI_TOO_LONG' }));
    expect(() => checkQuery('/v1/contacts?a&&b&&c', limits)).not.toThrow();
  });
});

describe('JSON depth', () => {
  it('counts nesting of arrays and objects, not brackets inside strings', () => {
    expect(jsonDepthExceeds('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonDepthExceeds('{"a":"[[[[[[\\"[[[["}', 1)).toBe(false);
  });
  it('scans 10,000 levels quickly', () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const started = performance.now();
    expect(jsonDepthExceeds(deep, 32)).toBe(true);
    expect(performance.now() - started).toBeLessThan(50);
  });
});
