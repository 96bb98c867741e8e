import { contactRecord } from '../support/crm-records';
import type { ContactRecord, ContactRepository } from '../../services/crm/src/repository/contact.repository';
import type { ApiClient } from './api-client';

const BATCH = 5_000;

/**
 * Stores contacts through the storage layer in bulk (the contact repository's importMany, 5,000 per command): the
 * stored shape and derived keys (name and search keys) of an API create, and no outbox entries — a seed is an
 * import, not that many contact.created events for the relay to publish.
 */
export async function importContacts(contacts: ContactRepository, records: ContactRecord[]): Promise<string[]> {
  for (let offset = 0; offset < records.length; offset += BATCH) await contacts.importMany(records.slice(offset, offset + BATCH));
  return records.map((record) => record.id);
}

/** `count` contacts, a minute apart (the newest-first page is well defined), with `extra` fields per contact. */
export function seedContacts(
  contacts: ContactRepository,
  orgId: string,
  count: number,
  extra: (i: number) => Partial<ContactRecord> = () => ({}),
): Promise<string[]> {
  const start = Date.now() - count * 60_000;
  const records = Array.from({ length: count }, (_, i) =>
    contactRecord(orgId, { name: `Seeded contact ${i}`, created_at: new Date(start + i * 60_000), tags: [`seed-${i % 7}`], ...extra(i) }),
  );
  return importContacts(contacts, records);
}

/** A funnel (the organization's first, so its default) and `count` deals in it, made through the public API. */
export async function seedDeals(api: ApiClient, count: number): Promise<string[]> {
  await api.call('POST', '/v1/funnels', { name: 'Bench funnel', stages: [{ name: 'New' }, { name: 'Qualified' }, { name: 'Proposal' }] });
  const ids: string[] = [];
  for (let i = 0; i < count; i += 8) {
    const batch = Array.from({ length: Math.min(8, count - i) }, (_, j) =>
      api.call<{ data: { id: string } }>('POST', '/v1/deals', { title: `Bench deal ${i + j}`, value: 1_000 }),
    );
    for (const deal of await Promise.all(batch)) ids.push(deal.data.id);
  }
  return ids;
}
