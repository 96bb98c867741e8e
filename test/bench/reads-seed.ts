import { createStorage, newId } from '@crm/shared';
import type { Connection } from 'mongoose';
import { createContactRepository, type ContactRecord } from '../../services/crm/src/repository/contact.repository';

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

const BATCH = 5_000;
const SPACING_MS = 10 * 60_000;

/**
 * Imports contacts `from`…`to` − 1 of one organization through the storage layer in bulk (the contact repository's
 * importMany: the stored shape and derived keys of an API create, 5,000 per command, no events), each 10 minutes
 * older than the one before, as if created through the API over the years: contact 0 is the newest.
 */
export async function importContacts(connection: Connection, orgId: string, from: number, to: number, now: number): Promise<string[]> {
  const contacts = createContactRepository(createStorage(connection));
  const ids: string[] = [];
  for (let offset = from; offset < to; offset += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, to - offset) }, (_, j) => contactAt(orgId, offset + j, now));
    await contacts.importMany(batch);
    ids.push(...batch.map((contact) => contact.id));
  }
  return ids;
}

function contactAt(orgId: string, i: number, now: number): ContactRecord {
  const first = FIRSTS[i % FIRSTS.length] ?? 'Ada';
  const last = LASTS[Math.floor(i / FIRSTS.length) % LASTS.length] ?? 'Lovelace';
  const at = new Date(now - i * SPACING_MS - (i % 7) * 1_000);
  return {
    id: newId('contact'),
    org_id: orgId,
    name: `${first} ${last}`,
    email: `${first}.${last}.${i}@example${i % 40}.com`.toLowerCase(),
    phone: `+1${String(2_025_550_000 + i)}`,
    photoapp_username: null,
    chatapp_jid: null,
    socialmsg_psid: null,
    socialmsg_name: null,
    source: 'api',
    avatar_url: null,
    company_id: null,
    tags: i % 100 === 0 ? [TAG_ONE_PERCENT, `t${i % 10}`] : [`t${i % 10}`],
    custom_fields: {},
    funnel_stage: null,
    last_message_at: null,
    messages_count: 0,
    created_at: at,
    updated_at: at,
    deleted_at: null,
  };
}
