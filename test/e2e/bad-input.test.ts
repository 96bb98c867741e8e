import { isErrorCode, newId } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import type { RouteDefinition } from '../../gateway/src/http/route';
import { ALL_ROUTES } from '../../gateway/src/routes';
import type { ApiResponse, RawApi } from '../support/api';
import { bodyProbes, fillPath, queryProbes, shapeOf, type Probe } from '../support/bad-input';
import { createTestOrg, type TestOrg } from '../support/orgs';

/**
 * A bad-input pass over every route of ALL_ROUTES with an all-scopes key: malformed and mistyped bodies, huge and
 * 5,000-level bodies, operator and prototype injection, broken Unicode, forged cursors, and another organization's
 * ids. Every answer must be a 4xx in the error envelope, nothing may be stored, and the other organization's records
 * must stay invisible and untouched.
 */
const CONCURRENCY = 8;

interface Seeded {
  ids: Record<string, string>;
  /** Lists whose totals must not change. */
  counts: Record<string, number>;
}

const LISTS = ['/v1/contacts', '/v1/companies', '/v1/deals', '/v1/tasks', '/v1/funnels', '/v1/webhooks', '/v1/broadcasts', '/v1/ai-agents'];

async function created(response: Promise<ApiResponse>): Promise<any> {
  const answer = await response;
  expect(answer.status, answer.text).toBe(201);
  return answer.body.data;
}

/** An organization's records, each named with `marker` so that any leak of them is found by a text search. */
async function seed(org: TestOrg, marker: string): Promise<Seeded> {
  const api = org.raw;
  const contact = await created(api.post('/v1/contacts', { name: `${marker} contact`, tags: ['vip'] }));
  await created(api.post('/v1/contacts', { name: `${marker} second contact` }));
  const company = await created(api.post('/v1/companies', { name: `${marker} company` }));
  await created(api.post('/v1/companies', { name: `${marker} second company` }));
  const funnel = await created(api.post('/v1/funnels', { name: `${marker} funnel`, stages: [{ name: 'Lead' }, { name: 'Won' }] }));
  const deal = await created(api.post('/v1/deals', { title: `${marker} deal`, funnel_id: funnel.id }));
  const task = await created(api.post('/v1/tasks', { title: `${marker} task` }));
  const contactNote = await created(api.post(`/v1/contacts/${contact.id}/notes`, { content: `${marker} note` }));
  const dealNote = await created(api.post(`/v1/deals/${deal.id}/notes`, { content: `${marker} deal note` }));
  const webhook = await created(
    api.post('/v1/webhooks', { name: `${marker} webhook`, url: 'http://127.0.0.1:9/hook', events: ['contact.created'] }),
  );
  const ids: Record<string, string> = {
    contacts: contact.id,
    companies: company.id,
    deals: deal.id,
    tasks: task.id,
    funnels: funnel.id,
    webhooks: webhook.id,
    'contacts/noteId': contactNote.id,
    'deals/noteId': dealNote.id,
    stageId: funnel.stages[0].id,
    tag: 'vip',
    conversations: newId('conversation'),
    messages: newId('message'),
    'chatapp-instances': newId('chatInstance'),
    broadcasts: newId('broadcast'),
    'ai-agents': newId('aiAgent'),
    runId: newId('agentRun'),
    deliveryId: newId('delivery'),
    events: newId('event'),
    replayId: newId('replay'),
    // The organization's own key: another organization revoking it must meet NOT_FOUND (and the key keep working).
    'api-keys': org.keyId,
  };
  return { ids, counts: await counts(api) };
}

async function counts(api: RawApi): Promise<Record<string, number>> {
  const entries = await Promise.all(
    LISTS.map(async (path) => {
      const response = await api.get(`${path}?limit=1`);
      expect(response.status, `${path}: ${response.text}`).toBe(200);
      return [path, response.body.meta.total as number] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** Runs `work` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** What is wrong with the answer to `probe`, or null. */
function verdict(probe: Probe, response: ApiResponse, elapsedMs: number, markers: string[]): string | null {
  const where = `${probe.method} ${probe.path.slice(0, 120)} [${probe.name}]`;
  if (response.status >= 500) return `${where}: ${response.status} ${response.text.slice(0, 200)}`;
  const leaked = markers.find((marker) => response.text.includes(marker));
  if (leaked) return `${where}: answer shows another organization's record (${leaked})`;
  if (elapsedMs > 5_000) return `${where}: took ${elapsedMs} ms`;
  if (probe.expect === 'no_server_error') return null;
  const body = response.body as { error?: { code?: unknown }; meta?: { request_id?: unknown } } | undefined;
  if (response.status < 400) return `${where}: ${response.status}, expected a 4xx`;
  if (!isErrorCode(body?.error?.code) || typeof body?.meta?.request_id !== 'string')
    return `${where}: not the error envelope: ${response.text.slice(0, 200)}`;
  if (probe.expect === 'not_found' && body.error.code !== 'NOT_FOUND') return `${where}: ${body.error.code}, expected NOT_FOUND`;
  return null;
}

async function send(api: RawApi, probe: Probe): Promise<{ response: ApiResponse; elapsedMs: number }> {
  const started = Date.now();
  const headers = probe.rawBody === undefined ? undefined : { 'content-type': 'application/json' };
  const response = await api.request(probe.method, probe.path, { rawBody: probe.rawBody, headers });
  return { response, elapsedMs: Date.now() - started };
}

/**
 * Another organization's ids in the path: get, delete, and a patch whose body the route takes must answer
 * NOT_FOUND; any other route a 4xx (a full-replacement PATCH validates its body first).
 */
function crossOrgProbe(route: RouteDefinition, victim: Seeded): Probe {
  const path = fillPath(route, victim.ids);
  const shape = shapeOf(route.body);
  const fields = 'name' in shape ? { name: 'hijack' } : 'title' in shape ? { title: 'hijack' } : {};
  const record = /^\/v1\/[\w-]+\/\{id\}$/.test(route.path);
  const notFound =
    record && (['GET', 'DELETE'].includes(route.method) || (route.method === 'PATCH' && route.body?.safeParse(fields).success === true));
  const body = ['GET', 'DELETE'].includes(route.method) ? undefined : JSON.stringify(fields);
  return { name: 'other organization', method: route.method, path, rawBody: body, expect: notFound ? 'not_found' : 'client_error' };
}

describe('bad input on every route', () => {
  it('answers a 4xx envelope to every malformed, injected or foreign request, and stores nothing', { timeout: 180_000 }, async () => {
    const marker = `victim${newId('request').slice(4, 14)}`;
    const [victimOrg, org] = await Promise.all([createTestOrg({ plan: 'enterprise' }), createTestOrg({ plan: 'enterprise' })]);
    const [victim, own] = await Promise.all([seed(victimOrg, marker), seed(org, 'attacker')]);

    const probes: Probe[] = [];
    for (const route of ALL_ROUTES) {
      const path = fillPath(route, own.ids);
      if (route.body) probes.push(...bodyProbes(route, path));
      if (route.query) probes.push(...queryProbes(route, path));
      if (route.path.includes('{')) probes.push(crossOrgProbe(route, victim));
    }
    probes.push(...(await cursorProbes(org, victimOrg)));

    const findings: string[] = [];
    await pool(probes, CONCURRENCY, async (probe) => {
      const { response, elapsedMs } = await send(org.raw, probe);
      const problem = verdict(probe, response, elapsedMs, [marker]);
      if (problem) findings.push(problem);
    });
    expect(findings, `${findings.length} of ${probes.length} probes`).toEqual([]);

    // Nothing stored by the bad writes, and the other organization's records untouched.
    expect(await counts(org.raw)).toEqual(own.counts);
    expect(await counts(victimOrg.raw)).toEqual(victim.counts);
    for (const list of LISTS) {
      expect((await org.raw.get(`${list}?limit=100`)).text).not.toContain(marker);
    }
    for (const resource of ['contacts', 'companies', 'deals', 'tasks', 'funnels', 'webhooks']) {
      const record = await victimOrg.raw.get(`/v1/${resource}/${victim.ids[resource]}`);
      expect(record.status, `${resource}: ${record.text}`).toBe(200);
      expect(record.text).toContain(marker);
      expect(record.text).not.toContain('hijack');
    }
  });

  it('escapes search: a catastrophic-backtracking pattern answers at once and matches nothing', async () => {
    const org = await createTestOrg();
    const victimText = `${'a'.repeat(40)}!`;
    await created(org.raw.post('/v1/contacts', { name: victimText }));
    await created(org.raw.post('/v1/companies', { name: victimText }));
    const searchable = ALL_ROUTES.filter(
      (route) => route.method === 'GET' && 'search' in shapeOf(route.query) && !route.path.includes('{'),
    );
    expect(searchable.length).toBeGreaterThan(1);
    for (const route of searchable) {
      for (const pattern of ['(a+)+$', '(a|aa)+!$', '^(a+)+b', '[', '\\', '.*']) {
        const started = Date.now();
        const response = await org.raw.get(`${route.path}?search=${encodeURIComponent(pattern)}`);
        expect(Date.now() - started, `${route.path} ${pattern}`).toBeLessThan(2_000);
        expect(response.status, `${route.path} ${pattern}: ${response.text}`).toBe(200);
        expect(response.body.data, `${route.path} ${pattern}`).toEqual([]);
      }
    }
  });

  it('keeps valid but unusual Unicode exactly: RTL overrides, 4-byte emoji, combining marks', async () => {
    const org = await createTestOrg();
    const name = 'Ana \u202eevil\u202c 👩🏽‍💻 e\u0301 𝔘𝔫𝔦𝔠𝔬𝔡𝔢';
    const contact = await created(org.raw.post('/v1/contacts', { name }));
    expect(contact.name).toBe(name);
    expect((await org.raw.get(`/v1/contacts/${contact.id}`)).body.data.name).toBe(name);
  });
});

/** Cursors that are random, tampered, from another list or filters, or from another organization's list. */
async function cursorProbes(org: TestOrg, other: TestOrg): Promise<Probe[]> {
  const cursorOf = async (api: RawApi, path: string): Promise<string> => {
    const response = await api.get(path);
    const cursor = response.body.meta?.next_cursor as string | undefined;
    expect(cursor, `${path}: ${response.text}`).toBeTruthy();
    return cursor!;
  };
  const own = await cursorOf(org.raw, '/v1/contacts?limit=1');
  const foreign = await cursorOf(other.raw, '/v1/contacts?limit=1');
  const last = own.at(-1) === 'A' ? 'B' : 'A';
  const probe = (name: string, path: string): Probe => ({ name, method: 'GET', path, expect: 'client_error' });
  return [
    probe('tampered cursor signature', `/v1/contacts?limit=1&cursor=${own.slice(0, -1)}${last}`),
    probe('tampered cursor payload', `/v1/contacts?limit=1&cursor=${own.slice(0, 5)}${own[5] === 'x' ? 'y' : 'x'}${own.slice(6)}`),
    probe('cursor of another list', `/v1/companies?limit=1&cursor=${own}`),
    probe('cursor of other filters', `/v1/contacts?limit=1&search=second&cursor=${own}`),
    probe("another organization's cursor", `/v1/contacts?limit=1&cursor=${foreign}`),
  ];
}
