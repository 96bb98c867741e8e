import { describe, expect, it } from 'vitest';
import { listAll } from '@crm/client';
import { createDeal, createFunnel, deactivateMember } from '../support/pipelines';
import { addCustomField, createTestOrg } from '../support/orgs';

describe('GET /v1/members', () => {
  it('lists the active members only, with their public fields', async () => {
    const org = await createTestOrg();
    const before = await org.raw.get('/v1/members');
    expect(before.status).toBe(200);
    expect(before.body.meta.total).toBe(2);
    expect(before.body.data.map((member: { id: string }) => member.id).sort()).toEqual([...org.memberIds].sort());
    expect(Object.keys(before.body.data[0]).sort()).toEqual([
      'avatar_url',
      'email',
      'id',
      'is_active',
      'is_owner',
      'last_active_at',
      'name',
      'role',
    ]);

    await deactivateMember(org.memberIds[1]!);
    const after = await org.client.GET('/v1/members');
    expect(after.data!.data.map((member: { id: string }) => member.id)).toEqual([org.memberIds[0]]);
    expect(after.data!.meta.total).toBe(1);
    expect((await (await org.keyWith(['read:contacts'])).client.GET('/v1/members')).error!.error.code).toBe('INSUFFICIENT_SCOPES');
  });
});

describe('GET /v1/custom-fields', () => {
  it('filters by entity, pages, and answers options null (never [])', async () => {
    const org = await createTestOrg();
    await addCustomField(org.orgId, { entity: 'contact', key: 'tier', type: 'select', options: ['gold', 'silver'] });
    await addCustomField(org.orgId, { entity: 'contact', key: 'empty_options', type: 'select', options: [] });
    await addCustomField(org.orgId, { entity: 'company', key: 'employees', type: 'number', required: true });
    await addCustomField(org.orgId, { entity: 'deal', key: 'source', type: 'text', is_active: false });

    const all = await listAll(org.client, '/v1/custom-fields', { query: { limit: 2 } });
    expect(all).toHaveLength(4);
    const contactFields = (await org.client.GET('/v1/custom-fields', { params: { query: { entity: 'contact' } } })).data!.data as Array<{
      key: string;
      options: unknown;
    }>;
    expect(contactFields.map((field) => field.key).sort()).toEqual(['empty_options', 'tier']);
    expect(contactFields.find((field) => field.key === 'tier')?.options).toEqual(['gold', 'silver']);
    expect(contactFields.find((field) => field.key === 'empty_options')?.options).toBeNull();
    const company = (await org.client.GET('/v1/custom-fields', { params: { query: { entity: 'company' } } })).data!.data[0]!;
    expect(company).toMatchObject({
      key: 'employees',
      type: 'number',
      entity: 'company',
      options: null,
      required: true,
      is_active: true,
      default_value: null,
    });
    expect((await org.raw.get('/v1/custom-fields?entity=ticket')).body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /v1/tags', () => {
  it('counts uses across live contacts, companies and deals, by count descending, and pages', async () => {
    const org = await createTestOrg();
    const other = await createTestOrg();
    await createFunnel(org.client);
    await org.client.POST('/v1/contacts', { body: { name: 'T1', tags: ['alpha', 'beta'] } });
    await org.client.POST('/v1/contacts', { body: { name: 'T2', tags: ['alpha'] } });
    const gone = (await org.client.POST('/v1/contacts', { body: { name: 'T3', tags: ['alpha', 'gamma'] } })).data!.data;
    await org.client.DELETE('/v1/contacts/{id}', { params: { path: { id: gone.id } } });
    await org.client.POST('/v1/companies', { body: { name: 'Co', tags: ['beta', 'delta'] } });
    await createDeal(org.client, { title: 'Deal', tags: ['alpha', 'delta', 'epsilon'] });
    await other.client.POST('/v1/contacts', { body: { name: 'Elsewhere', tags: ['alpha', 'zeta'] } });

    const response = await org.client.GET('/v1/tags');
    expect(response.response.status).toBe(200);
    expect(response.data!.data).toEqual([
      { name: 'alpha', count: 3 },
      { name: 'beta', count: 2 },
      { name: 'delta', count: 2 },
      { name: 'epsilon', count: 1 },
    ]);
    expect(response.data!.meta.total).toBe(4);
    const paged = await listAll(org.client, '/v1/tags', { query: { limit: 1 } });
    expect(paged.map((tag: { name: string }) => tag.name)).toEqual(['alpha', 'beta', 'delta', 'epsilon']);
  });
});
