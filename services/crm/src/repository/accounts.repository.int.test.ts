import { connectStorage, createLogger, newId, type Storage } from '@crm/shared';
import { describe, expect, inject, it } from 'vitest';
import { useDatabase } from '../../../../test/support/integration';
import type { CrmDeps } from '../domain/deps';
import { createDeps } from '../wiring';
import { createCustomFieldRepository, type CustomFieldRepository } from './custom-field.repository';

describe('organization, key, member and custom-field repositories', () => {
  let deps: CrmDeps;
  let storage: Storage;
  useDatabase('crm_accounts', (opened) => {
    storage = opened;
    deps = createDeps(storage, createLogger('test', 'silent'));
  });

  it('finds a key by its hash, and revokes it once', async () => {
    const orgId = newId('organization');
    await deps.organizations.insert({ id: orgId, name: 'Acme', plan: 'pro', currency: 'USD', timezone: 'UTC', created_at: new Date() });
    const key = {
      id: newId('apiKey'),
      org_id: orgId,
      name: 'backend',
      hash: 'a'.repeat(64),
      prefix: 'sk_live_ab',
      scopes: ['read:contacts'],
      created_at: new Date(),
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
    };
    await deps.apiKeys.insert(key);
    expect(await deps.apiKeys.findByHash(key.hash)).toEqual(key);
    expect(await deps.apiKeys.getById(newId('organization'), key.id)).toBeNull();
    const revocations = await Promise.all([1, 2].map(() => deps.apiKeys.revoke(orgId, key.id, new Date())));
    expect(revocations.filter(Boolean)).toHaveLength(1);
    expect(await deps.apiKeys.countActive(orgId)).toBe(0);
    expect((await deps.organizations.getById(orgId))?.plan).toBe('pro');
  });

  it("pages an organization's active members newest first, and names inactive ones too", async () => {
    const orgId = newId('organization');
    const member = (name: string, n: number, active = true) => ({
      id: newId('member'),
      org_id: orgId,
      name,
      email: `${name}@acme.example`,
      role: 'member' as const,
      is_owner: false,
      is_active: active,
      last_active_at: null,
      avatar_url: null,
      created_at: new Date(n),
    });
    const [ann, bob, gone] = [member('ann', 1), member('bob', 2), member('gone', 3, false)];
    for (const one of [ann, bob, gone]) await deps.members.insert(one);
    const first = await deps.members.listActive(orgId, { limit: 1, after: undefined });
    expect(first.items.map((one) => one.name)).toEqual(['bob']);
    expect((await deps.members.listActive(orgId, { limit: 5, after: first.next })).items.map((one) => one.name)).toEqual(['ann']);
    expect(await deps.members.getActive(orgId, gone.id)).toBeNull();
    expect((await deps.members.getMany(orgId, [gone.id])).get(gone.id)?.name).toBe('gone');
  });

  it('keeps custom-field keys unique per entity and answers an empty option list as null', async () => {
    const orgId = newId('organization');
    const field = {
      id: newId('customField'),
      org_id: orgId,
      key: 'industry',
      label: 'Industry',
      type: 'select' as const,
      entity: 'contact' as const,
      options: [] as string[],
      default_value: null,
      required: false,
      is_active: true,
      created_at: new Date(),
      updated_at: new Date(),
    };
    await deps.customFields.insert(field);
    await expect(deps.customFields.insert({ ...field, id: newId('customField') })).rejects.toMatchObject({ code: 11000 });
    await deps.customFields.insert({ ...field, id: newId('customField'), entity: 'deal' });
    expect((await deps.customFields.activeFor(orgId, 'contact')).map((found) => found.options)).toEqual([null]);
    expect(await deps.customFields.count(orgId)).toBe(2);
  });

  it("reuses an organization's definitions, and every replica sees a new one once its insert has answered", async () => {
    const orgId = newId('organization');
    const field = (key: string) => ({
      id: newId('customField'),
      org_id: orgId,
      key,
      label: key,
      type: 'text' as const,
      entity: 'contact' as const,
      options: null,
      default_value: null,
      required: true,
      is_active: true,
      created_at: new Date(),
      updated_at: new Date(),
    });
    // Another replica: its own connection to the same database, its own cache.
    const other = await connectStorage(inject('integration').MONGODB_URI, storage.connection.name);
    const replica = createCustomFieldRepository(other);
    try {
      await deps.customFields.insert(field('industry'));
      const keys = async (of: CustomFieldRepository) => (await of.activeFor(orgId, 'contact')).map((found) => found.key).sort();
      expect(await keys(replica)).toEqual(['industry']);
      // The replica's copy predates this insert, which answers only once that copy has expired.
      await deps.customFields.insert(field('region'));
      expect(await keys(replica)).toEqual(['industry', 'region']);
      expect(await keys(deps.customFields)).toEqual(['industry', 'region']);
    } finally {
      await other.close();
    }
  });
});
