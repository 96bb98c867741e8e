import { newId } from '@crm/shared';
import type { mongo } from 'mongoose';
import type { ApiClient } from './api-client';

const BATCH = 1_000;

/**
 * Inserts `count` live contacts straight into the CRM database, in the exact stored shape the contact repository
 * writes (prefixed `_id`, `name_key`, `rev`, dates, nulls), minutes apart so the newest-first page is well defined.
 * No outbox entries: a seed is an import, not `count` contact.created events for the relay to publish.
 */
export async function seedContacts(
  db: mongo.Db,
  orgId: string,
  count: number,
  extra: (i: number) => Record<string, unknown> = () => ({}),
): Promise<string[]> {
  const contacts = db.collection<{ _id: string }>('contacts');
  const start = Date.now() - count * 60_000;
  const ids: string[] = [];
  for (let offset = 0; offset < count; offset += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, count - offset) }, (_, j) => {
      const i = offset + j;
      const at = new Date(start + i * 60_000);
      const name = `Seeded contact ${i}`;
      const doc = {
        _id: newId('contact'),
        org_id: orgId,
        name,
        name_key: name.toLowerCase(),
        email: null,
        phone: null,
        photoapp_username: null,
        chatapp_jid: null,
        socialmsg_psid: null,
        socialmsg_name: null,
        source: 'api',
        avatar_url: null,
        company_id: null,
        tags: [`seed-${i % 7}`],
        custom_fields: {},
        funnel_stage: null,
        last_message_at: null,
        messages_count: 0,
        created_at: at,
        updated_at: at,
        deleted_at: null,
        rev: 1,
        ...extra(i),
      };
      ids.push(doc._id);
      return doc;
    });
    await contacts.insertMany(docs, { ordered: false });
  }
  return ids;
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
