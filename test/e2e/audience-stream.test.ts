import { AudienceServiceService, type AudienceContact, type AudienceRequest } from '@crm/proto/gen/crm/v1/audiences';
import { createAsyncClient } from '@crm/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setContactChannels } from '../support/fixtures';
import { addCustomField, createTestOrg, type TestOrg } from '../support/orgs';
import { testCaller, testSystem } from '../support/system';

/**
 * The broadcast sender reads its audience from the CRM over a server-streaming RPC, page by page, oldest first.
 * Contacts are made through the gateway as users make them; the audience is read straight from the CRM replicas.
 */
const audiences = createAsyncClient(AudienceServiceService, testSystem().env.CRM_GRPC_URL ?? '', 'crm.v1.AudienceService', {
  identity: testCaller(),
});
afterAll(() => audiences.close());

interface Created {
  id: string;
  created_at: string;
}

const requestOf = (orgId: string, fields: Partial<AudienceRequest> = {}): AudienceRequest => ({
  org_id: orgId,
  type: 'all',
  tags: [],
  tags_operator: '',
  contact_ids: [],
  exclude_tags: [],
  page_size: 0,
  ...fields,
});

async function pagesOf(orgId: string, fields: Partial<AudienceRequest> = {}): Promise<AudienceContact[][]> {
  const pages: AudienceContact[][] = [];
  for await (const page of audiences.streamAudience(requestOf(orgId, fields))) pages.push(page.contacts);
  return pages;
}

const idsOf = async (orgId: string, fields: Partial<AudienceRequest> = {}) => (await pagesOf(orgId, fields)).flat().map((c) => c.id);

/** The order the stream promises: created_at, then id (byte order, as the store compares strings). */
const inCreatedOrder = (contacts: Created[]) =>
  [...contacts]
    .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1))
    .map((contact) => contact.id);

async function createContact(org: TestOrg, body: Record<string, unknown>): Promise<Created> {
  const response = await org.raw.post('/v1/contacts', body);
  expect(response.status, response.text).toBe(201);
  return response.body.data;
}

describe('StreamAudience: the live contacts of a broadcast audience', () => {
  let org: TestOrg;
  let other: TestOrg;
  /** Created one after the other (distinct created_at), named by what the filters see of them. */
  const c: Record<string, Created> = {};
  let foreign: Created;
  let foreignBare: Created;

  beforeAll(async () => {
    [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
    await addCustomField(org.orgId, { entity: 'contact', key: 'city', type: 'text' });
    const bodies: Record<string, Record<string, unknown>> = {
      vipLeadPhone: {
        name: 'Ana Vip Lead',
        email: 'ana@example.com',
        phone: '+14155550101',
        tags: ['vip', 'lead'],
        custom_fields: { city: 'Lisbon' },
      },
      vipManual: { name: 'Bruno Vip', tags: ['vip'], source: 'manual' },
      leadImport: { name: 'Carla Lead', phone: '+14155550103', tags: ['lead'], source: 'import' },
      vipLeadOptout: { name: 'Dario Opt-out', phone: '+14155550104', tags: ['vip', 'lead', 'optout'] },
      jidOnly: { name: 'Eva Jid', tags: ['other'] },
      bare: { name: 'Fabio Bare', tags: ['other'] },
      deleted: { name: 'Gina Deleted', phone: '+14155550107', tags: ['vip', 'lead'] },
    };
    for (const [key, body] of Object.entries(bodies)) {
      c[key] = await createContact(org, body);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await setContactChannels(c.jidOnly!.id, { chatapp_jid: '5511999990000@s.whatsapp.net' });
    expect((await org.client.DELETE('/v1/contacts/{id}', { params: { path: { id: c.deleted!.id } } })).response.status).toBe(204);
    // The other organization has contacts every filter would match.
    foreign = await createContact(other, { name: 'Foreign Vip', phone: '+14155550101', tags: ['vip', 'lead'], source: 'manual' });
    foreignBare = await createContact(other, { name: 'Foreign Bare', tags: ['other'] });
  });

  const ids = (...keys: string[]) => keys.map((key) => c[key]!.id);

  it('type all: every live contact of the organization, oldest first, in one page by default', async () => {
    const pages = await pagesOf(org.orgId);
    expect(pages).toHaveLength(1);
    expect(pages.flat().map((contact) => contact.id)).toEqual(
      ids('vipLeadPhone', 'vipManual', 'leadImport', 'vipLeadOptout', 'jidOnly', 'bare'),
    );
  });

  it('maps each contact to what a broadcast needs, custom fields as an object', async () => {
    const [first] = (await pagesOf(org.orgId, { type: 'contacts', contact_ids: ids('vipLeadPhone') })).flat();
    expect(first).toEqual({
      id: c.vipLeadPhone!.id,
      name: 'Ana Vip Lead',
      email: 'ana@example.com',
      phone: '+14155550101',
      tags: ['vip', 'lead'],
      custom_fields: { city: 'Lisbon' },
      source: 'api',
      created_at: c.vipLeadPhone!.created_at,
    });
    const [jid] = (await pagesOf(org.orgId, { type: 'contacts', contact_ids: ids('jidOnly') })).flat();
    expect(jid).toMatchObject({ chatapp_jid: '5511999990000@s.whatsapp.net', custom_fields: {} });
    expect(jid!.phone).toBeUndefined();
  });

  it('sends pages of page_size, the last one holding the rest', async () => {
    expect((await pagesOf(org.orgId, { page_size: 2 })).map((page) => page.length)).toEqual([2, 2, 2]);
    const pages = await pagesOf(org.orgId, { page_size: 4 });
    expect(pages.map((page) => page.length)).toEqual([4, 2]);
    expect(pages.flat().map((contact) => contact.id)).toEqual(await idsOf(org.orgId));
  });

  it('type tags: or matches any tag, and matches all of them (or by default)', async () => {
    const vipOrLead = ids('vipLeadPhone', 'vipManual', 'leadImport', 'vipLeadOptout');
    expect(await idsOf(org.orgId, { type: 'tags', tags: ['vip', 'lead'], tags_operator: 'or' })).toEqual(vipOrLead);
    expect(await idsOf(org.orgId, { type: 'tags', tags: ['vip', 'lead'] })).toEqual(vipOrLead);
    expect(await idsOf(org.orgId, { type: 'tags', tags: ['vip', 'lead'], tags_operator: 'and' })).toEqual(
      ids('vipLeadPhone', 'vipLeadOptout'),
    );
    expect(await idsOf(org.orgId, { type: 'tags', tags: ['nobody'] })).toEqual([]);
  });

  it('exclude_tags leaves out contacts holding any of them', async () => {
    expect(await idsOf(org.orgId, { type: 'tags', tags: ['vip', 'lead'], exclude_tags: ['optout'] })).toEqual(
      ids('vipLeadPhone', 'vipManual', 'leadImport'),
    );
    expect(await idsOf(org.orgId, { exclude_tags: ['other', 'optout'] })).toEqual(ids('vipLeadPhone', 'vipManual', 'leadImport'));
  });

  it('has_chatapp: true keeps contacts with a chatapp jid or a phone, false those with neither', async () => {
    expect(await idsOf(org.orgId, { has_chatapp: true })).toEqual(ids('vipLeadPhone', 'leadImport', 'vipLeadOptout', 'jidOnly'));
    expect(await idsOf(org.orgId, { has_chatapp: false })).toEqual(ids('vipManual', 'bare'));
  });

  it('source and the created_at window [created_after, created_before) filter too', async () => {
    expect(await idsOf(org.orgId, { source: 'manual' })).toEqual(ids('vipManual'));
    expect(await idsOf(org.orgId, { source: 'import', type: 'tags', tags: ['lead'] })).toEqual(ids('leadImport'));
    const window = { created_after: c.leadImport!.created_at, created_before: c.jidOnly!.created_at };
    expect(await idsOf(org.orgId, window)).toEqual(ids('leadImport', 'vipLeadOptout'));
  });

  it('type contacts: the listed live contacts of the organization, once each, in created order', async () => {
    const listed = [...ids('vipManual', 'vipLeadPhone', 'vipManual', 'deleted'), foreign.id, 'ct_doesnotexist000000000', 'garbage'];
    expect(await idsOf(org.orgId, { type: 'contacts', contact_ids: listed })).toEqual(ids('vipLeadPhone', 'vipManual'));
  });

  it('never shows another organization its contacts, and never a deleted contact', async () => {
    expect(await idsOf(other.orgId)).toEqual([foreign.id, foreignBare.id]);
    expect(await idsOf(other.orgId, { type: 'tags', tags: ['vip'] })).toEqual([foreign.id]);
    expect(await idsOf(other.orgId, { type: 'contacts', contact_ids: ids('vipLeadPhone') })).toEqual([]);
    const everything = await idsOf(org.orgId, { type: 'tags', tags: ['vip', 'lead'] });
    expect(everything).not.toContain(c.deleted!.id);
    expect(everything).not.toContain(foreign.id);
  });

  it.each<[string, Partial<AudienceRequest>]>([
    ['a missing org_id', { org_id: '' }],
    ['an unknown type', { type: 'everyone' }],
    ['an unknown tags_operator', { type: 'tags', tags: ['vip'], tags_operator: 'xor' }],
    ['type tags without tags', { type: 'tags' }],
    ['tags with type all', { tags: ['vip'] }],
    ['type contacts without ids', { type: 'contacts' }],
    ['more than 10,000 contact ids', { type: 'contacts', contact_ids: Array.from({ length: 10_001 }, (_, i) => `ct_${i}`) }],
    ['page_size above 1000', { page_size: 1001 }],
    ['a negative page_size', { page_size: -1 }],
    ['a created_after that is no ISO date-time', { created_after: 'yesterday' }],
    ['a created_before that is no ISO date-time', { created_before: '2025-13-45' }],
    ['an empty window', { created_after: '2025-01-02T00:00:00Z', created_before: '2025-01-01T00:00:00Z' }],
    ['an unknown source', { source: 'fax' }],
  ])('refuses %s with VALIDATION_ERROR', async (_case, fields) => {
    await expect(pagesOf(org.orgId, fields)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('StreamAudience over a large audience', () => {
  it('streams 1,200 contacts completely, in created order, in 3 pages of at most 500', { timeout: 240_000 }, async () => {
    const big = await createTestOrg();
    const created: Created[] = [];
    // Batches of 20 concurrent creates: fast, without flooding the gateway.
    for (let start = 0; start < 1_200; start += 20) {
      created.push(
        ...(await Promise.all(Array.from({ length: 20 }, (_, i) => createContact(big, { name: `Bulk ${start + i}`, tags: ['bulk'] })))),
      );
    }
    const pages = await pagesOf(big.orgId, { type: 'tags', tags: ['bulk'], page_size: 500 });
    expect(pages.map((page) => page.length)).toEqual([500, 500, 200]);
    const streamed = pages.flat().map((contact) => contact.id);
    expect(new Set(streamed).size).toBe(1_200);
    expect(streamed).toEqual(inCreatedOrder(created));
  });
});
