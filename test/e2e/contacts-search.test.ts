import { listAll } from '@crm/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { crmAdmin, createTestOrg, type TestOrg } from '../support/orgs';

/**
 * `search` through the search keys (services/shared/src/mongo/search-keys.ts; README "Search"): every part of the
 * search text occurs in the name, e-mail or phone at the start of a word, ignoring case and accents; phone
 * characters match a phone's digits at its start or its end.
 */
let org: TestOrg;
const ids: Record<string, string> = {};

const found = async (search: string): Promise<string[]> => {
  const response = await org.raw.get(`/v1/contacts?search=${encodeURIComponent(search)}&sort=name&order=asc`);
  expect(response.status, response.text).toBe(200);
  return (response.body.data as Array<{ name: string }>).map((contact) => contact.name);
};

beforeAll(async () => {
  org = await createTestOrg();
  for (const body of [
    { name: 'Ada Lovelace', email: 'ada.lovelace@example.com', phone: '+442071234567' },
    { name: 'José Álvarez', email: 'jose@correo.es' },
    { name: 'Grace Hopper', email: 'grace@navy.mil', phone: '+12025550143' },
    { name: 'Adam Smith', email: 'adam@smith.example' },
  ]) {
    const response = await org.raw.post('/v1/contacts', body);
    expect(response.status, response.text).toBe(201);
    ids[body.name] = response.body.data.id;
  }
});

describe('GET /v1/contacts?search=', () => {
  it('matches the start of words of the name or e-mail, ignoring case and accents', async () => {
    expect(await found('lov')).toEqual(['Ada Lovelace']);
    expect(await found('ADA')).toEqual(['Ada Lovelace', 'Adam Smith']);
    expect(await found('ada love')).toEqual(['Ada Lovelace']);
    expect(await found('lovelace ada')).toEqual(['Ada Lovelace']);
    expect(await found('grace navy')).toEqual(['Grace Hopper']);
    expect(await found('jose')).toEqual(['José Álvarez']);
    expect(await found('JOSÉ álv')).toEqual(['José Álvarez']);
    expect(await found('ada.lovelace@exa')).toEqual(['Ada Lovelace']);
    expect(await found('navy.mil')).toEqual(['Grace Hopper']);
  });

  it('matches a phone by its digits, written any way, at its start or its end', async () => {
    expect(await found('+44 20 7123 4567')).toEqual(['Ada Lovelace']);
    expect(await found('2071234567')).toEqual(['Ada Lovelace']);
    expect(await found('+1 (202) 555')).toEqual(['Grace Hopper']);
    expect(await found('0143')).toEqual(['Grace Hopper']);
  });

  it('does not match inside a word, a part whose punctuation differs, or punctuation alone', async () => {
    for (const search of ['lace', 'velace', 'ada lace', 'ada-lovelace', '555014', '.*', '(a+)+$', '@'])
      expect(await found(search), search).toEqual([]);
  });

  it('follows a change of name, e-mail or phone, each alone', async () => {
    const grace = ids['Grace Hopper']!;
    expect((await org.raw.patch(`/v1/contacts/${grace}`, { email: 'amazing@cobol.org' })).status).toBe(200);
    expect(await found('navy')).toEqual([]);
    expect(await found('cobol')).toEqual(['Grace Hopper']);
    expect((await org.raw.patch(`/v1/contacts/${grace}`, { phone: '+13105550199' })).status).toBe(200);
    expect(await found('0143')).toEqual([]);
    expect(await found('0199')).toEqual(['Grace Hopper']);
    // The name's keys were kept when only the phone changed, and the e-mail's when only the name did.
    expect((await org.raw.patch(`/v1/contacts/${grace}`, { name: 'Rear Admiral Hopper' })).status).toBe(200);
    expect(await found('grace')).toEqual([]);
    expect(await found('admiral')).toEqual(['Rear Admiral Hopper']);
    expect(await found('amazing@cobol')).toEqual(['Rear Admiral Hopper']);
  });

  it('pages through the matches without a gap or a repeat, and leaves deleted contacts out', async () => {
    const many = await createTestOrg();
    for (let i = 0; i < 12; i++)
      expect((await many.raw.post('/v1/contacts', { name: `Pager ${i}`, email: `p${i}@pager.example` })).status).toBe(201);
    await many.raw.post('/v1/contacts', { name: 'Someone Else' });
    const listed = await listAll(many.client, '/v1/contacts', { query: { search: 'pager', limit: 5 } });
    expect(listed.map((contact) => contact.name).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `Pager ${i}`).sort());
    expect((await many.raw.delete(`/v1/contacts/${listed[0]!.id}`)).status).toBe(204);
    expect(await listAll(many.client, '/v1/contacts', { query: { search: 'pager', limit: 5 } })).toHaveLength(11);
  });

  it('reads the search keys through an index: the planner scans no collection', async () => {
    const { contacts } = await crmAdmin();
    const plan = await contacts.collection
      .find({ $and: [{ org_id: org.orgId, deleted_at: null }, { search_keys: 'lov' }, { search_text: { $regex: 'lov' } }] })
      .sort({ created_at: -1, _id: -1 })
      .limit(26)
      .explain('queryPlanner');
    const stages = JSON.stringify(plan.queryPlanner?.winningPlan ?? plan);
    expect(stages).toContain('IXSCAN');
    expect(stages).toContain('search_keys');
    expect(stages).not.toContain('COLLSCAN');
  });
});

describe('GET /v1/companies and /v1/deals?search=', () => {
  it('search companies by name, e-mail and phone, and deals by title, the same way', async () => {
    const companies = await createTestOrg();
    await companies.raw.post('/v1/companies', { name: 'Société Générale', email: 'contact@sg.example', phone: '+33142143535' });
    await companies.raw.post('/v1/companies', { name: 'Initech', phone: '+14155550199' });
    const names = async (path: string) =>
      ((await companies.raw.get(path)).body.data as Array<{ name?: string; title?: string }>).map((row) => row.name ?? row.title);
    expect(await names('/v1/companies?search=societe')).toEqual(['Société Générale']);
    expect(await names('/v1/companies?search=5550199')).toEqual(['Initech']);
    expect(await names('/v1/companies?search=ete')).toEqual([]);
    await companies.raw.post('/v1/funnels', { name: 'Sales', stages: [{ name: 'New' }] });
    await companies.raw.post('/v1/deals', { title: 'Renewal for Initech' });
    expect(await names('/v1/deals?search=renew init')).toEqual(['Renewal for Initech']);
    expect(await names('/v1/deals?search=newal')).toEqual([]);
  });
});
