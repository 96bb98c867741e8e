import { describe, expect, it } from 'vitest';
import { normalizeSearchText, searchConditions, searchFields } from './search-keys';

describe('search keys', () => {
  const ada = searchFields({ texts: ['Ada Lovelace', 'Ada.Lovelace@Example.com'], phones: ['+442071234567'] });

  it('keys every word prefix of the texts and the phone digits by their beginnings and ends', () => {
    for (const key of ['a', 'ada', 'l', 'love', 'lovelace', 'example', 'com', '4', '44207', '442071234567', '4567', '1234567'])
      expect(ada.search_keys, key).toContain(key);
    // Not inside a word, not the e-mail whole, not three digits at the end.
    for (const key of ['elace', 'ada.lovelace', 'ada lovelace', '567']) expect(ada.search_keys, key).not.toContain(key);
    expect(ada.search_text).toBe('ada lovelace\nada.lovelace@example.com\n+442071234567');
  });

  it('normalizes accents, case and white space the same way on both sides', () => {
    expect(normalizeSearchText('  José   ÁLVAREZ İnce ')).toBe('jose alvarez ince');
    expect(searchFields({ texts: ['Zoë Ñúñez'] }).search_keys).toEqual(expect.arrayContaining(['zoe', 'nunez']));
  });

  it('looks a search up by its words, longest first, and checks the parts with punctuation literally', () => {
    expect(searchConditions('ADA  love')).toEqual([{ search_keys: 'love' }, { search_keys: 'ada' }]);
    expect(searchConditions('ada.lovelace@exa')).toEqual([
      { search_keys: 'lovelace' },
      { search_keys: 'ada' },
      { search_keys: 'exa' },
      { search_text: { $regex: 'ada\\.lovelace@exa' } },
    ]);
    // Punctuation is literal: the pattern is text, not a regular expression.
    expect(searchConditions('(a+)+$')).toEqual([{ search_keys: 'a' }, { search_text: { $regex: '\\(a\\+\\)\\+\\$' } }]);
  });

  it('reads a search of phone characters as digits, and one with no letter or digit as matching nothing', () => {
    expect(searchConditions('+44 (20) 7123-4567')).toEqual([{ search_keys: '442071234567' }]);
    expect(searchConditions('4567')).toEqual([{ search_keys: '4567' }]);
    expect(searchConditions('.*')).toBeNull();
    expect(searchConditions('\u0000')).toBeNull();
  });

  it('cuts a long word to the indexed prefix and keeps at most eight words', () => {
    const long = 'x'.repeat(40);
    expect(searchFields({ texts: [long] }).search_keys).toHaveLength(24);
    expect(searchConditions(long)?.[0]).toEqual({ search_keys: 'x'.repeat(24) });
    expect(searchConditions(`${long} y`)).toEqual([
      { search_keys: 'x'.repeat(24) },
      { search_keys: 'y' },
      { search_text: { $regex: long } },
    ]);
    const many = searchConditions('a bb ccc dddd eeeee ffffff ggggggg hhhhhhhh iiiiiiiii jjjjjjjjjj') ?? [];
    expect(many.filter((condition) => 'search_keys' in condition)).toHaveLength(8);
    expect(many[0]).toEqual({ search_keys: 'jjjjjjjjjj' });
  });
});
