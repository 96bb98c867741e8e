import { AppError } from '@crm/shared/core';
import { describe, expect, it } from 'vitest';
import { refuseBrokenText, refuseOperatorNames } from './input-guards';

const refusal = (run: () => void): AppError | undefined => {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  return undefined;
};

describe('refuseBrokenText', () => {
  it('accepts well-formed text: emoji (surrogate pairs), RTL overrides, combining marks', () => {
    expect(refusal(() => refuseBrokenText({ name: 'Ana 👩🏽‍💻 \u202eevil\u202c e\u0301', tags: ['𝔘𝔫𝔦'], n: 1, x: null }))).toBeUndefined();
  });

  it('refuses a NUL, a lone high or low surrogate, in values and keys, naming the field', () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'a\u0000b' }, 'name'],
      [{ name: 'bad \ud800 text' }, 'name'],
      [{ name: 'bad \udc00 text' }, 'name'],
      [{ name: 'ends with \ud83d' }, 'name'],
      [{ tags: ['ok', 'bad\u0000'] }, 'tags.1'],
      [{ custom_fields: { ['k\ud800']: 1 } }, 'custom_fields.k\ud800'],
    ];
    for (const [body, field] of cases) {
      const error = refusal(() => refuseBrokenText(body));
      expect(error?.code).toBe('VALIDATION_ERROR');
      expect(error?.details).toEqual({ fields: [{ field, issue: expect.stringContaining('NUL') }] });
    }
  });

  it('walks 5,000 levels without overflowing the stack', () => {
    let deep: unknown = 'bad\u0000';
    for (let level = 0; level < 5_000; level++) deep = { a: deep };
    expect(refusal(() => refuseBrokenText(deep))?.code).toBe('VALIDATION_ERROR');
  });
});

describe('refuseOperatorNames', () => {
  it('lets plain parameter names through and refuses operator or path shaped ones', () => {
    expect(refusal(() => refuseOperatorNames({ search: 'x', limit: '5', created_after: 'y', _: '1' }))).toBeUndefined();
    const error = refusal(() => refuseOperatorNames({ 'search[$gt]': '', 'status[$ne]': 'x', 'a.b': '1', $where: '1', ok: '1' }));
    expect(error?.code).toBe('VALIDATION_ERROR');
    const fields = (error?.details as { fields: Array<{ field: string }> }).fields.map((entry) => entry.field);
    expect(fields).toEqual(['search[$gt]', 'status[$ne]', 'a.b', '$where']);
  });
});
