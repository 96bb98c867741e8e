import { newId } from '@crm/shared';
import { MongoClient, type Db } from 'mongodb';
import { testSystem } from './system';

let dbPromise: Promise<Db> | undefined;

/** The run's CRM database, for tests that need records whose API is built elsewhere. */
function crmDb(): Promise<Db> {
  dbPromise ??= (async () => {
    const { env } = testSystem();
    const client = await new MongoClient(env.MONGODB_URI ?? '').connect();
    return client.db(env.CRM_DB_NAME);
  })();
  return dbPromise;
}

/**
 * Inserts a deal document with the shape agreed with the deals module, so that companies, notes and tasks can be
 * tested against deals without depending on the deal routes. Returns its id.
 */
export async function insertRawDeal(
  orgId: string,
  fields: { title?: string; value?: number; status?: 'open' | 'won' | 'lost'; company_id?: string | null; contact_ids?: string[] } = {},
): Promise<string> {
  const db = await crmDb();
  const id = newId('deal');
  const now = new Date();
  await db.collection('deals').insertOne({
    _id: id as never,
    org_id: orgId,
    title: fields.title ?? 'Raw deal',
    value: fields.value ?? 0,
    currency: 'USD',
    status: fields.status ?? 'open',
    funnel_id: newId('funnel'),
    stage_id: newId('stage'),
    contact_ids: fields.contact_ids ?? [],
    company_id: fields.company_id ?? null,
    assigned_to: null,
    tags: [],
    custom_fields: {},
    deleted_at: null,
    created_at: now,
    updated_at: now,
  });
  return id;
}

/** Soft-deletes a raw deal, as the deals module does. */
export async function deleteRawDeal(id: string): Promise<void> {
  const db = await crmDb();
  await db.collection('deals').updateOne({ _id: id as never }, { $set: { deleted_at: new Date() } });
}

/** Marks a member inactive, as the panel does when someone leaves the organization. */
