import { escapeRegExp } from './escape-regexp';

/**
 * Search through an index, on any store. A record keeps two derived fields, written with its sources:
 *
 * - `search_keys`: every prefix (up to MAX_PREFIX characters) of every word of its texts (name, e-mail…), and
 *   every prefix and every suffix of MIN_SUFFIX digits or more of the digits of its phone numbers — the values a
 *   search term is looked up by, with one equality on a multikey index (no scan, on MongoDB or elsewhere);
 * - `search_text`: its texts normalized, one per line — where the whole search text is then checked literally.
 *
 * Normalized = decomposed (NFKD), accents and other combining marks removed, lower-cased, runs of white space as
 * one space. A word = a run of letters and digits. So a search matches a record when
 * - every part of the search text (split at white space) occurs, normalized, in one of its normalized texts, and
 *   each word of it begins a word there (matched on its first MAX_PREFIX characters): `lov`, `ADA love`,
 *   `lovelace ada`, `ada.lovelace@exa` find "Ada Lovelace <ada.lovelace@example.com>", `José` and `jose` both
 *   find "José"; `elace` (inside a word) does not, nor does `(a+)+$` find "aaa" (its punctuation is literal);
 * - or, for a search made only of phone characters (digits, spaces, `+ - . ( ) /`), the phone's digits begin or end
 *   with its digits (`+44 20 7123`, `442071234567`, `4567` find +442071234567; at least MIN_SUFFIX digits at the end).
 * A search with no letter or digit at all matches nothing.
 */
export const SEARCH_KEYS = 'search_keys';
export const SEARCH_TEXT = 'search_text';

/** Characters of a word the keys hold: a longer word is found by its beginning, then checked in full in the text. */
export const MAX_PREFIX = 24;
/** The shortest end of a phone number a search finds it by (the last four digits). */
export const MIN_SUFFIX = 4;
/** Words (and parts) of a search text that are looked up: the longest; the rest of a long search is not checked. */
const MAX_TERMS = 8;

const WORD = /[\p{L}\p{N}]+/gu;
const ONE_WORD = /^[\p{L}\p{N}]+$/u;
const MARKS = /\p{M}/gu;
const PHONE_SEARCH = /^[\d\s+().\-/]+$/;

/** Decomposed, without combining marks, lower-cased, white space collapsed: the form both sides are compared in. */
export function normalizeSearchText(value: string): string {
  return value.normalize('NFKD').replace(MARKS, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

export interface SearchSources {
  /** Free texts: names, e-mails, titles. */
  texts: Array<string | null | undefined>;
  /** Phone numbers, found by their digits. */
  phones?: Array<string | null | undefined>;
}

export interface SearchFields {
  search_keys: string[];
  search_text: string;
}

/** The derived fields of a record with these texts and phones (RecordStore `derive`). */
export function searchFields(sources: SearchSources): SearchFields {
  const keys = new Set<string>();
  const texts = sources.texts.filter((text): text is string => typeof text === 'string' && text !== '').map(normalizeSearchText);
  for (const text of texts) for (const word of text.match(WORD) ?? []) addPrefixes(keys, word, MAX_PREFIX);
  const phones = (sources.phones ?? []).filter((phone): phone is string => typeof phone === 'string' && phone !== '');
  for (const phone of phones) {
    const digits = phone.replace(/\D/g, '');
    addPrefixes(keys, digits, digits.length);
    for (let length = MIN_SUFFIX; length < digits.length; length++) keys.add(digits.slice(-length));
  }
  return { search_keys: [...keys], search_text: [...texts, ...phones.map(normalizeSearchText)].join('\n') };
}

function addPrefixes(keys: Set<string>, word: string, max: number): void {
  const characters = Array.from(word);
  for (let length = 1; length <= Math.min(characters.length, max); length++) keys.add(characters.slice(0, length).join(''));
}

/**
 * The conditions a search text puts on a list, or null when it can match nothing: each word an equality on
 * `search_keys`, longest first (the index scan starts from the most selective), and each part that is more than a
 * plain word (punctuation, or longer than the keys hold) a literal check of `search_text`.
 */
export function searchConditions(search: string): Array<Record<string, unknown>> | null {
  const text = normalizeSearchText(search);
  if (PHONE_SEARCH.test(text)) {
    const digits = text.replace(/\D/g, '');
    if (digits !== '') return [{ [SEARCH_KEYS]: digits }];
  }
  const longestFirst = (values: string[]) => [...new Set(values)].sort((a, b) => b.length - a.length).slice(0, MAX_TERMS);
  const words = longestFirst((text.match(WORD) ?? []).map((word) => Array.from(word).slice(0, MAX_PREFIX).join('')));
  if (words.length === 0) return null;
  const literal = longestFirst(text.split(' ').filter((part) => !ONE_WORD.test(part) || Array.from(part).length > MAX_PREFIX));
  return [...words.map((word) => ({ [SEARCH_KEYS]: word })), ...literal.map((part) => ({ [SEARCH_TEXT]: { $regex: escapeRegExp(part) } }))];
}
