import type { ContactRecord, ContactRepository } from '../../services/crm/src/repository/contact.repository';
import { contactRecord } from '../support/crm-records';
import { importContacts } from './seed';

const FIRST = ['Ada', 'Alan', 'Grace', 'Linus', 'Margaret', 'Dennis', 'Barbara', 'Ken', 'Edsger', 'Donald', 'Frances', 'John'];
const FIRST_MORE = ['Katherine', 'Tim', 'Radia', 'Niklaus', 'Leslie', 'Shafi', 'Yukihiro', 'Guido', 'Bjarne', 'James', 'José', 'Zoë'];
const FIRSTS = [...FIRST, ...FIRST_MORE];
/** 200 family names: each on one contact in 200 (0.5 %), Lovelace included. */
const SYLLABLES = ['har', 'mor', 'kel', 'bran', 'stel', 'quin', 'dor', 'vas', 'pel', 'tor'];
const ENDINGS = ['ton', 'ley', 'son', 'ford', 'wick', 'man', 'dale', 'ridge', 'more', 'field'];
const LASTS = [
  'Lovelace',
  ...Array.from({ length: 199 }, (_, i) => {
    const name = `${SYLLABLES[i % 10]}${ENDINGS[Math.floor(i / 10) % 10]}${i >= 100 ? 'e' : ''}`;
    return name.charAt(0).toUpperCase() + name.slice(1);
  }),
];
export const SEARCH_TERM = 'lovel';
export const TAG_ONE_PERCENT = 'one-percent';

const SPACING_MS = 10 * 60_000;

/**
 * Imports contacts `from`…`to` − 1 of one organization in bulk (seed.ts importContacts: through the storage layer),
 * each 10 minutes older than the one before, as if created through the API over the years: contact 0 is the newest.
 */
export function importContactsRange(contacts: ContactRepository, orgId: string, from: number, to: number, now: number): Promise<string[]> {
  return importContacts(
    contacts,
    Array.from({ length: to - from }, (_, j) => contactAt(orgId, from + j, now)),
  );
}

function contactAt(orgId: string, i: number, now: number): ContactRecord {
  const first = FIRSTS[i % FIRSTS.length] ?? 'Ada';
  const last = LASTS[Math.floor(i / FIRSTS.length) % LASTS.length] ?? 'Lovelace';
  return contactRecord(orgId, {
    name: `${first} ${last}`,
    // The API accepts ASCII addresses only: José and Zoë write theirs without the accents.
    email: `${first}.${last}.${i}@example${i % 40}.com`
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase(),
    phone: `+1${String(2_025_550_000 + i)}`,
    tags: i % 100 === 0 ? [TAG_ONE_PERCENT, `t${i % 10}`] : [`t${i % 10}`],
    created_at: new Date(now - i * SPACING_MS - (i % 7) * 1_000),
  });
}
