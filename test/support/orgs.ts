import { createLogger, createStorage, newId } from '@crm/shared';
import mongoose from 'mongoose';
import { createApiKey, createMember, createOrganization } from '../../services/crm/src/domain/admin';
import { SCOPES } from '../../services/crm/src/domain/scopes';
import type { CustomFieldEntity, CustomFieldType } from '../../services/crm/src/repository/custom-field.repository';
import { createDeps } from '../../services/crm/src/wiring';
import type { CrmDeps } from '../../services/crm/src/domain/deps';
import type { CrmClient } from '@crm/client';
import { rawApi, type RawApi } from './api';
import { client } from './client';
import { testSystem } from './system';

let depsPromise: Promise<CrmDeps> | undefined;

/** The CRM's own admin functions on the run's CRM database: how operators create organizations and keys. */
export function crmAdmin(): Promise<CrmDeps> {
  depsPromise ??= (async () => {
    const { env } = testSystem();
    const connection = await mongoose.createConnection(env.MONGODB_URI ?? '', { dbName: env.CRM_DB_NAME }).asPromise();
    const deps = createDeps(createStorage(connection), createLogger('test-admin', 'silent'));
    await Promise.all(Object.values(connection.models).map((model) => model.init()));
    return deps;
  })();
  return depsPromise;
}

export interface TestOrg {
  orgId: string;
  key: string;
  keyId: string;
  /** The typed client (@crm/client) with the key: every documented call. */
  client: CrmClient;
  /** The untyped client with the key: deliberately invalid requests only. */
  raw: RawApi;
  memberIds: string[];
  /** A second key of the same organization with only these scopes. */
  keyWith(scopes: string[]): Promise<ScopedKey>;
}

/** A key of a test organization, with its typed and its untyped client. */
export interface ScopedKey {
  key: string;
  keyId: string;
  client: CrmClient;
  raw: RawApi;
}

const scopedKey = (key: string, keyId: string): ScopedKey => ({ key, keyId, client: client(key), raw: rawApi(key) });

/** A fresh organization with two members and a key holding every scope (or the given ones). */
export async function createTestOrg(options: { plan?: string; scopes?: readonly string[]; name?: string } = {}): Promise<TestOrg> {
  const deps = await crmAdmin();
  const organization = await createOrganization(deps, {
    name: options.name ?? `Test org ${newId('request')}`,
    plan: options.plan ?? 'pro',
  });
  const owner = await createMember(deps, organization.id, {
    name: 'Owner Person',
    email: `owner-${organization.id}@test.example`,
    role: 'owner',
  });
  const seller = await createMember(deps, organization.id, {
    name: 'Seller Person',
    email: `seller-${organization.id}@test.example`,
    role: 'member',
  });
  const key = await createApiKey(deps, organization.id, { name: 'test', scopes: [...(options.scopes ?? SCOPES)] });
  return {
    orgId: organization.id,
    key: key.key,
    keyId: key.id,
    client: client(key.key),
    raw: rawApi(key.key),
    memberIds: [owner.id, seller.id],
    keyWith: async (scopes) => {
      const created = await createApiKey(deps, organization.id, { name: 'scoped', scopes });
      return scopedKey(created.key, created.id);
    },
  };
}

export async function addCustomField(
  orgId: string,
  field: {
    entity: CustomFieldEntity;
    key: string;
    type: CustomFieldType;
    options?: string[];
    required?: boolean;
    is_active?: boolean;
    default_value?: unknown;
  },
): Promise<string> {
  const deps = await crmAdmin();
  const now = new Date();
  const id = newId('customField');
  await deps.customFields.insert({
    id,
    org_id: orgId,
    key: field.key,
    label: field.key,
    type: field.type,
    entity: field.entity,
    options: field.options ?? null,
    default_value: field.default_value ?? null,
    required: field.required ?? false,
    is_active: field.is_active ?? true,
    created_at: now,
    updated_at: now,
  });
  return id;
}
