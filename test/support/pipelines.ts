import { newId } from '@crm/shared';
import { MongoClient, type Db } from 'mongodb';
import { expect } from 'vitest';
import { type CrmClient, type RequestBody } from '@crm/client';
import { testSystem } from './system';

/** Creates a funnel through the API (new test organizations have none) and returns it. */
export async function createFunnel(client: CrmClient, body: Partial<RequestBody<'/v1/funnels', 'post'>> = {}): Promise<any> {
  const { data, error, response } = await client.POST('/v1/funnels', {
    body: {
      name: body.name ?? 'Pipeline',
      stages: body.stages ?? [{ name: 'Lead' }, { name: 'Qualified' }, { name: 'Won-ish' }],
      ...(body.is_default !== undefined ? { is_default: body.is_default } : {}),
    },
  });
  expect(response.status, JSON.stringify(error)).toBe(201);
  return data!.data;
}

/** Creates a deal through the API and returns it. */
export async function createDeal(client: CrmClient, body: RequestBody<'/v1/deals', 'post'>): Promise<any> {
  const { data, error, response } = await client.POST('/v1/deals', { body });
  expect(response.status, JSON.stringify(error)).toBe(201);
  return data!.data;
}

let dbPromise: Promise<Db> | undefined;

/** The run's CRM database, for fixtures the deal routes only reference (companies, member state). */
function crmDb(): Promise<Db> {
  dbPromise ??= (async () => {
    const { env } = testSystem();
    const client = await new MongoClient(env.MONGODB_URI ?? '').connect();
    return client.db(env.CRM_DB_NAME);
  })();
  return dbPromise;
}

/** A live company of the shape the companies module stores, without depending on its routes. */
export async function insertRawCompany(orgId: string, name: string): Promise<string> {
  const db = await crmDb();
  const id = newId('company');
  const now = new Date();
  await db.collection('companies').insertOne({
    _id: id as never,
    org_id: orgId,
    name,
    tags: [],
    custom_fields: {},
    assigned_to: null,
    deleted_at: null,
    created_at: now,
    updated_at: now,
  });
  return id;
}

/** Members are managed in the panel; tests flip the flag the CRM reads. */
export async function deactivateMember(memberId: string): Promise<void> {
  const db = await crmDb();
  await db.collection('members').updateOne({ _id: memberId as never }, { $set: { is_active: false } });
}

export async function reactivateMember(memberId: string): Promise<void> {
  const db = await crmDb();
  await db.collection('members').updateOne({ _id: memberId as never }, { $set: { is_active: true } });
}
