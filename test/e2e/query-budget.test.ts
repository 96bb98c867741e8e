import { beforeAll, describe, expect, it } from 'vitest';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { createFunnel } from '../support/pipelines';

/**
 * The database commands each main route may send, counted by the driver's command monitoring in the gateway and
 * every service the request reaches (X-Db-Commands, see services/shared/src/mongo/command-count.ts). A list is
 * one page query plus a cached count and batched lookups: no N+1, and the budget cannot grow unnoticed.
 * The count is the steady state of a client making many calls.
 */
const BUDGETS: Array<{
  route: string;
  budget: number;
  call: (org: TestOrg, ids: Fixture) => Promise<{ status: number; headers: Headers }>;
}> = [
  // Page and the company names (notes and deals counts are stored on each contact); the count is cached.
  { route: 'GET /v1/contacts', budget: 2, call: (org) => org.raw.get('/v1/contacts?limit=50') },
  { route: 'GET /v1/contacts (search, tag)', budget: 2, call: (org) => org.raw.get('/v1/contacts?search=budget&tag=vip') },
  // The contact (with its stored counts) and its newest deals in one aggregate, then the company name and the deals' stage names.
  { route: 'GET /v1/contacts/{id}', budget: 3, call: (org, ids) => org.raw.get(`/v1/contacts/${ids.contact}`) },
  { route: 'POST /v1/contacts', budget: 2, call: (org) => org.raw.post('/v1/contacts', { name: 'Budget Created', tags: ['vip'] }) },
  {
    route: 'PATCH /v1/contacts/{id}',
    budget: 6,
    call: (org, ids) => org.raw.patch(`/v1/contacts/${ids.contact}`, { name: `Renamed ${Math.random()}` }),
  },
  {
    // Ten new people with external ids and e-mails: their reads and inserts go as one command per step (about 60 if
    // each item went alone).
    route: 'POST /v1/contacts/batch/upsert (10 items)',
    budget: 12,
    call: (org) => {
      const run = Math.random().toString(36).slice(2);
      const items = Array.from({ length: 10 }, (_, n) => ({
        external_id: `budget-${run}-${n}`,
        email: `budget-${run}-${n}@example.com`,
        name: `Budget ${n}`,
      }));
      return org.raw.post('/v1/contacts/batch/upsert', { items });
    },
  },
  { route: 'GET /v1/deals', budget: 5, call: (org) => org.raw.get('/v1/deals?limit=50') },
  { route: 'GET /v1/deals/{id}', budget: 5, call: (org, ids) => org.raw.get(`/v1/deals/${ids.deal}`) },
  {
    route: 'PATCH /v1/deals/{id}',
    budget: 7,
    call: (org, ids) => org.raw.patch(`/v1/deals/${ids.deal}`, { value: Math.floor(Math.random() * 1e6) }),
  },
  { route: 'GET /v1/companies', budget: 3, call: (org) => org.raw.get('/v1/companies?limit=50') },
  { route: 'GET /v1/funnels', budget: 4, call: (org) => org.raw.get('/v1/funnels') },
  { route: 'GET /v1/tasks', budget: 2, call: (org) => org.raw.get('/v1/tasks?limit=50') },
  // Page, count, and the page's backlog (one indexed aggregate over undelivered deliveries).
  { route: 'GET /v1/webhooks', budget: 3, call: (org) => org.raw.get('/v1/webhooks') },
];

interface Fixture {
  contact: string;
  deal: string;
}

const KEY_CHECK = new Set(['find:api_keys', 'find:organizations']);

const commandsOf = (response: { headers: Headers }): string[] =>
  (response.headers.get('x-db-commands') ?? '').split(',').filter((command) => command !== '' && !KEY_CHECK.has(command));

describe('query budget per request', () => {
  let org: TestOrg;
  let ids: Fixture;

  beforeAll(async () => {
    org = await createTestOrg();
    await createFunnel(org.client, { name: 'Sales', stages: [{ name: 'Lead' }, { name: 'Won' }] });
    const company = (await org.client.POST('/v1/companies', { body: { name: 'Budget Co' } })).data!.data.id as string;
    const contacts: string[] = [];
    // Enough rows that an N+1 would show: every listed record links to a company, tags, deals and notes.
    for (let i = 0; i < 30; i++)
      contacts.push(
        (await org.client.POST('/v1/contacts', { body: { name: `Budget ${i}`, tags: ['vip'], company_id: company } })).data!.data
          .id as string,
      );
    const deals: string[] = [];
    for (let i = 0; i < 30; i++)
      deals.push(
        (await org.raw.post('/v1/deals', { title: `Budget deal ${i}`, value: i, contact_ids: [contacts[i]], company_id: company })).body
          .data.id as string,
      );
    for (let i = 0; i < 5; i++) await org.raw.post(`/v1/contacts/${contacts[0]}/notes`, { content: `note ${i}` });
    for (let i = 0; i < 10; i++) await org.client.POST('/v1/tasks', { body: { title: `Budget task ${i}`, contact_id: contacts[i] } });
    await org.client.POST('/v1/webhooks', { body: { name: 'budget', url: 'http://127.0.0.1:9/hook', events: ['contact.created'] } });
    ids = { contact: contacts[0]!, deal: deals[0]! };
  });

  it.each(BUDGETS)('$route stays within $budget database commands', async ({ call, budget }) => {
    // The smallest of a few calls: steady state, where each replica has its cached count (calls alternate between
    // the two). The key check is left out: the gateway caches it, and on a slow machine the cache of the tests'
    // short TTL may expire between calls.
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await call(org, ids));
    for (const answer of answers) expect(answer.status).toBeLessThan(300);
    const counts = answers.map(commandsOf).sort((a, b) => a.length - b.length);
    const fewest = counts[0] ?? [];
    expect(answers[0]!.headers.has('x-db-commands'), 'the gateway answers X-Db-Commands in tests').toBe(true);
    // At least the page or record query itself: a count of 0 would mean the counting broke, not a cheap route.
    expect(fewest.length, `commands: ${fewest.join(', ')}`).toBeGreaterThanOrEqual(1);
    expect(fewest.length, `commands: ${fewest.join(', ')}`).toBeLessThanOrEqual(budget);
  });
});
