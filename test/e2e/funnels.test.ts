import { beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '@crm/dev-tools/demo';
import { listAll } from '@crm/client';
import { client } from '../support/client';
import { createTestOrg, crmAdmin, type TestOrg } from '../support/orgs';
import { createDeal, createFunnel } from '../support/pipelines';

let org: TestOrg;

beforeAll(async () => {
  org = await createTestOrg({ plan: 'pro' });
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('POST /v1/funnels', () => {
  it('creates a funnel with ordered stages; the first funnel of an organization becomes the default', async () => {
    const fresh = await createTestOrg();
    const response = await fresh.client.POST('/v1/funnels', {
      body: {
        name: 'Sales',
        stages: [{ name: 'Lead', color: '#AABBCC', probability: 10 }, { name: 'Proposal' }],
      },
    });
    expect(response.response.status).toBe(201);
    const funnel = response.data!.data;
    expect(funnel).toMatchObject({ name: 'Sales', position: 1, is_default: true, is_archived: false, total_deals: 0, total_value: 0 });
    expect(funnel.id).toMatch(/^fn_/);
    expect(funnel.created_at).toMatch(ISO);
    expect(funnel.stages).toHaveLength(2);
    expect(funnel.stages[0]).toMatchObject({
      funnel_id: funnel.id,
      name: 'Lead',
      position: 1,
      color: '#AABBCC',
      probability: 10,
      total_deals: 0,
      total_value: 0,
    });
    expect(funnel.stages[1]).toMatchObject({ name: 'Proposal', position: 2, color: null, probability: null });
    expect(funnel.stages[0]!.id).toMatch(/^st_/);

    const second = await createFunnel(fresh.client, { name: 'Second' });
    expect(second).toMatchObject({ position: 2, is_default: false });
  });

  it('validates the body: stages 1–30, #RRGGBB colors, probability 0–100, unknown fields', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'X', stages: [] }, 'VALIDATION_ERROR'],
      [{ name: 'X' }, 'VALIDATION_ERROR'],
      [{ name: 'X', stages: Array.from({ length: 31 }, (_, i) => ({ name: `S${i}` })) }, 'VALIDATION_ERROR'],
      [{ name: 'X', stages: [{ name: 'A', color: 'red' }] }, 'VALIDATION_ERROR'],
      [{ name: 'X', stages: [{ name: 'A', probability: 101 }] }, 'VALIDATION_ERROR'],
      [{ name: 'X', stages: [{ name: 'A', probability: 'high' }] }, 'VALIDATION_ERROR'],
      [{ name: 'X', stages: [{ name: 'A', extra: 1 }] }, 'UNKNOWN_FIELDS'],
      [{ name: 'X', stages: [{ name: 'A' }], owner: 'me' }, 'UNKNOWN_FIELDS'],
    ];
    for (const [body, code] of cases) {
      const response = await org.raw.post('/v1/funnels', body);
      expect(response.body.error?.code, JSON.stringify(body)).toBe(code);
      expect(response.status).toBe(422);
    }
    const thirty = await org.client.POST('/v1/funnels', {
      body: {
        name: 'Thirty',
        stages: Array.from({ length: 30 }, (_, i) => ({ name: `S${i}` })),
      },
    });
    expect(thirty.response.status).toBe(201);
  });

  it('answers PLAN_RESTRICTION beyond the funnel count of the plan (free: 1 active funnel)', async () => {
    const free = await createTestOrg({ plan: 'free' });
    await createFunnel(free.client);
    const response = await free.client.POST('/v1/funnels', { body: { name: 'Two', stages: [{ name: 'A' }] } });
    expect(response.response.status).toBe(403);
    expect(response.error!.error).toMatchObject({
      code: 'PLAN_RESTRICTION',
      type: 'forbidden',
      details: { feature: 'funnels', plan: 'free', limit: 1 },
    });
  });
});

describe('is_default and is_archived', () => {
  it('keeps exactly one default: setting it on one removes it from the previous one', async () => {
    const fresh = await createTestOrg();
    const first = await createFunnel(fresh.client, { name: 'First' });
    const second = await createFunnel(fresh.client, { name: 'Second', is_default: true });
    expect(second.is_default).toBe(true);
    expect((await fresh.client.GET('/v1/funnels/{id}', { params: { path: { id: first.id } } })).data!.data.is_default).toBe(false);

    const patched = await fresh.client.PATCH('/v1/funnels/{id}', { params: { path: { id: first.id } }, body: { is_default: true } });
    expect(patched.response.status).toBe(200);
    expect(patched.data!.data.is_default).toBe(true);
    const all = await listAll(fresh.client, '/v1/funnels');
    expect(all.filter((funnel) => funnel.is_default).map((funnel) => funnel.id)).toEqual([first.id]);

    expect((await fresh.raw.patch(`/v1/funnels/${first.id}`, { is_default: false })).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses to archive the default funnel; archived funnels leave the list unless include_archived=true', async () => {
    const fresh = await createTestOrg();
    const main = await createFunnel(fresh.client, { name: 'Main' });
    const old = await createFunnel(fresh.client, { name: 'Old' });

    const refused = await fresh.client.PATCH('/v1/funnels/{id}', { params: { path: { id: main.id } }, body: { is_archived: true } });
    expect(refused.response.status).toBe(422);
    expect(refused.error!.error.code).toBe('VALIDATION_ERROR');

    const archived = await fresh.client.PATCH('/v1/funnels/{id}', {
      params: { path: { id: old.id } },
      body: { is_archived: true, name: 'Old (archived)' },
    });
    expect(archived.response.status).toBe(200);
    expect(archived.data!.data).toMatchObject({ is_archived: true, name: 'Old (archived)' });

    const visible = await fresh.client.GET('/v1/funnels');
    expect(visible.data!.data.map((funnel: { id: string }) => funnel.id)).toEqual([main.id]);
    expect(visible.data!.meta.total).toBe(2);
    const everything = await fresh.client.GET('/v1/funnels', { params: { query: { include_archived: 'true' } } });
    expect(everything.data!.data.map((funnel: { id: string }) => funnel.id)).toEqual([main.id, old.id]);
    expect((await fresh.client.GET('/v1/funnels/{id}', { params: { path: { id: old.id } } })).response.status).toBe(200);

    // An archived funnel takes no new deals.
    const deal = await fresh.client.POST('/v1/deals', { body: { title: 'Late', funnel_id: old.id } });
    expect(deal.response.status).toBe(422);
    expect(deal.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'funnel_id', id: old.id } });
  });
});

describe('PATCH /v1/funnels/{id}', () => {
  it('refuses stages with UNKNOWN_FIELDS and reorders funnels by position', async () => {
    const fresh = await createTestOrg();
    const [a, b, c] = [
      await createFunnel(fresh.client, { name: 'A' }),
      await createFunnel(fresh.client, { name: 'B' }),
      await createFunnel(fresh.client, { name: 'C' }),
    ];
    const unknown = await fresh.client.PATCH('/v1/funnels/{id}', { params: { path: { id: a.id } }, body: { stages: [] } });
    expect(unknown.response.status).toBe(422);
    expect(unknown.error!.error).toMatchObject({ code: 'UNKNOWN_FIELDS', details: { fields: ['stages'] } });

    const moved = await fresh.client.PATCH('/v1/funnels/{id}', { params: { path: { id: c.id } }, body: { position: 1 } });
    expect(moved.response.status).toBe(200);
    expect(moved.data!.data.position).toBe(1);
    const order = (await listAll(fresh.client, '/v1/funnels')).map((funnel) => [funnel.name, funnel.position]);
    expect(order).toEqual([
      ['C', 1],
      ['A', 2],
      ['B', 3],
    ]);
    expect(b.position).toBe(2);
  });

  it('DELETE /v1/funnels/{id} answers 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const funnel = await createFunnel(org.client);
    const response = await org.raw.delete(`/v1/funnels/${funnel.id}`);
    expect(response.status).toBe(405);
    expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toContain('PATCH');
  });
});

describe('stages', () => {
  it('creates, moves and updates stages with position shifting', async () => {
    const funnel = await createFunnel(org.client, { stages: [{ name: 'A' }, { name: 'B' }, { name: 'C' }] });
    const created = await org.client.POST('/v1/funnels/{id}/stages', {
      params: { path: { id: funnel.id } },
      body: {
        name: 'Between',
        position: 2,
        color: '#00FF00',
        probability: 40,
      },
    });
    expect(created.response.status).toBe(201);
    expect(created.data!.data).toMatchObject({
      name: 'Between',
      position: 2,
      funnel_id: funnel.id,
      color: '#00FF00',
      probability: 40,
      total_deals: 0,
    });
    const last = await org.client.POST('/v1/funnels/{id}/stages', { params: { path: { id: funnel.id } }, body: { name: 'Last' } });
    expect(last.data!.data.position).toBe(5);
    const names = async () =>
      (await org.client.GET('/v1/funnels/{id}', { params: { path: { id: funnel.id } } })).data!.data.stages.map(
        (stage: { name: string; position: number }) => `${stage.position}:${stage.name}`,
      );
    expect(await names()).toEqual(['1:A', '2:Between', '3:B', '4:C', '5:Last']);

    const moved = await org.raw.patch(`/v1/funnels/${funnel.id}/stages/${last.data!.data.id}`, { position: 1, name: 'First now' });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ position: 1, name: 'First now' });
    expect(await names()).toEqual(['1:First now', '2:A', '3:Between', '4:B', '5:C']);

    const bad = await org.raw.patch(`/v1/funnels/${funnel.id}/stages/${last.data!.data.id}`, { color: 'blue' });
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    const unknown = await org.client.POST('/v1/funnels/{id}/stages', {
      params: { path: { id: funnel.id } },
      body: { name: 'X', funnel_id: funnel.id },
    });
    expect(unknown.error!.error.code).toBe('UNKNOWN_FIELDS');
  });

  it('refuses a 31st stage', async () => {
    const funnel = await createFunnel(org.client, { stages: Array.from({ length: 30 }, (_, i) => ({ name: `S${i}` })) });
    const response = await org.client.POST('/v1/funnels/{id}/stages', {
      params: { path: { id: funnel.id } },
      body: { name: 'One too many' },
    });
    expect(response.response.status).toBe(422);
    expect(response.error!.error.code).toBe('VALIDATION_ERROR');
  });

  it('deletes a stage; STAGE_HAS_DEALS while it holds live deals; VALIDATION_ERROR for the last stage', async () => {
    const funnel = await createFunnel(org.client, { stages: [{ name: 'Keep' }, { name: 'Busy' }] });
    const [keep, busy] = funnel.stages;
    const deal = await createDeal(org.client, { title: 'Sitting here', funnel_id: funnel.id, stage_id: busy.id });
    await org.client.POST('/v1/deals/{id}/win', { params: { path: { id: deal.id } } });

    const refused = await org.client.DELETE('/v1/funnels/{id}/stages/{stageId}', { params: { path: { id: funnel.id, stageId: busy.id } } });
    expect(refused.response.status).toBe(403);
    expect(refused.error!.error).toMatchObject({ code: 'STAGE_HAS_DEALS', type: 'forbidden', details: { deals_count: 1 } });

    expect((await org.client.DELETE('/v1/deals/{id}', { params: { path: { id: deal.id } } })).response.status).toBe(204);
    const deleted = await org.client.DELETE('/v1/funnels/{id}/stages/{stageId}', { params: { path: { id: funnel.id, stageId: busy.id } } });
    expect(deleted.response.status).toBe(204);
    expect(
      (await org.client.GET('/v1/funnels/{id}', { params: { path: { id: funnel.id } } })).data!.data.stages.map(
        (stage: { id: string }) => stage.id,
      ),
    ).toEqual([keep.id]);

    const lastOne = await org.client.DELETE('/v1/funnels/{id}/stages/{stageId}', { params: { path: { id: funnel.id, stageId: keep.id } } });
    expect(lastOne.response.status).toBe(422);
    expect(lastOne.error!.error.code).toBe('VALIDATION_ERROR');
    expect(
      (await org.client.DELETE('/v1/funnels/{id}/stages/{stageId}', { params: { path: { id: funnel.id, stageId: busy.id } } })).response
        .status,
    ).toBe(404);
  });

  it('answers NOT_FOUND for a stage of another funnel and INVALID_ID for malformed ids', async () => {
    const one = await createFunnel(org.client);
    const other = await createFunnel(org.client);
    const response = await org.client.PATCH('/v1/funnels/{id}/stages/{stageId}', {
      params: { path: { id: one.id, stageId: other.stages[0].id } },
      body: { name: 'X' },
    });
    expect(response.response.status).toBe(404);
    expect(
      (
        await org.client.PATCH('/v1/funnels/{id}/stages/{stageId}', {
          params: { path: { id: one.id, stageId: 'nope' } },
          body: { name: 'X' },
        })
      ).error!.error.code,
    ).toBe('INVALID_ID');
    expect((await org.client.GET('/v1/funnels/{id}', { params: { path: { id: 'fn_bad' } } })).error!.error.code).toBe('INVALID_ID');
    expect((await org.client.GET('/v1/funnels/{id}', { params: { path: { id: one.stages[0].id } } })).error!.error.code).toBe('INVALID_ID');
  });
});

describe('totals', () => {
  it('count open live deals per funnel and stage, exactly, under concurrent creates', async () => {
    const funnel = await createFunnel(org.client, { stages: [{ name: 'A' }, { name: 'B' }] });
    const [a, b] = funnel.stages;
    const values = Array.from({ length: 24 }, (_, i) => i + 1);
    const created = await Promise.all(
      values.map((value, i) =>
        createDeal(org.client, { title: `C${i}`, value, funnel_id: funnel.id, stage_id: i % 2 === 0 ? a.id : b.id }),
      ),
    );
    const sum = (list: number[]) => list.reduce((total, value) => total + value, 0);

    let read = (await org.client.GET('/v1/funnels/{id}', { params: { path: { id: funnel.id } } })).data!.data;
    expect(read).toMatchObject({ total_deals: 24, total_value: sum(values) });
    expect(read.stages[0]).toMatchObject({ total_deals: 12, total_value: sum(values.filter((_, i) => i % 2 === 0)) });
    expect(read.stages[1]).toMatchObject({ total_deals: 12, total_value: sum(values.filter((_, i) => i % 2 === 1)) });

    // Won, lost and deleted deals leave the totals; reopened ones come back.
    await org.client.POST('/v1/deals/{id}/win', { params: { path: { id: created[0].id } } });
    await org.client.POST('/v1/deals/{id}/lose', { params: { path: { id: created[1].id } }, body: { lost_reason: 'price' } });
    await org.client.DELETE('/v1/deals/{id}', { params: { path: { id: created[2].id } } });
    read = (await org.client.GET('/v1/funnels/{id}', { params: { path: { id: funnel.id } } })).data!.data;
    expect(read).toMatchObject({ total_deals: 21, total_value: sum(values) - 1 - 2 - 3 });
    await org.client.POST('/v1/deals/{id}/reopen', { params: { path: { id: created[0].id } } });
    read = (await org.client.GET('/v1/funnels/{id}', { params: { path: { id: funnel.id } } })).data!.data;
    expect(read).toMatchObject({ total_deals: 22, total_value: sum(values) - 2 - 3 });
  });

  it("never count another organization's deals, which cannot see the funnel either", async () => {
    const funnel = await createFunnel(org.client);
    const before = (await org.client.GET('/v1/funnels/{id}', { params: { path: { id: funnel.id } } })).data!.data.total_deals;
    const other = await createTestOrg();
    expect((await other.client.GET('/v1/funnels/{id}', { params: { path: { id: funnel.id } } })).response.status).toBe(404);
    expect(
      (await other.client.PATCH('/v1/funnels/{id}', { params: { path: { id: funnel.id } }, body: { name: 'Mine' } })).response.status,
    ).toBe(404);
    expect(
      (await other.client.POST('/v1/funnels/{id}/stages', { params: { path: { id: funnel.id } }, body: { name: 'Mine' } })).response.status,
    ).toBe(404);
    const refused = await other.client.POST('/v1/deals', { body: { title: 'Sneaky', funnel_id: funnel.id } });
    expect(refused.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'funnel_id' } });
    const theirs = await createFunnel(other.client);
    await createDeal(other.client, { title: 'Theirs', value: 1000, funnel_id: theirs.id });
    expect((await org.client.GET('/v1/funnels/{id}', { params: { path: { id: funnel.id } } })).data!.data.total_deals).toBe(before);
    expect((await listAll(other.client, '/v1/funnels')).map((item) => item.id)).toEqual([theirs.id]);
  });
});

describe('scopes', () => {
  it('needs read:funnels to read and write:funnels to write', async () => {
    const reader = await org.keyWith(['read:funnels']);
    expect((await reader.client.GET('/v1/funnels')).response.status).toBe(200);
    const response = await reader.client.POST('/v1/funnels', { body: { name: 'X', stages: [{ name: 'A' }] } });
    expect(response.response.status).toBe(403);
    expect(response.error!.error).toMatchObject({ code: 'INSUFFICIENT_SCOPES', missing_scopes: ['write:funnels'] });
    const writer = await org.keyWith(['write:funnels']);
    expect((await writer.client.GET('/v1/funnels')).error!.error.code).toBe('INSUFFICIENT_SCOPES');
  });
});

describe('pagination', () => {
  it('pages through funnels in position order with cursors', async () => {
    const fresh = await createTestOrg();
    for (let i = 0; i < 5; i++) await createFunnel(fresh.client, { name: `F${i}` });
    const first = await fresh.client.GET('/v1/funnels', { params: { query: { limit: 2 } } });
    expect(first.data!.meta).toMatchObject({ total: 5, has_more: true });
    const all = await listAll(fresh.client, '/v1/funnels', { query: { limit: 2 } });
    expect(all.map((funnel) => funnel.name)).toEqual(['F0', 'F1', 'F2', 'F3', 'F4']);
  });
});

describe('demo seed', () => {
  it('gives the demo organization a default "Sales pipeline", so deals need no funnel_id', async () => {
    const demo = await seedDemo(await crmAdmin(), { name: `Demo ${Date.now()}` });
    const demoClient = client(demo.api_key);
    const funnels = (await demoClient.GET('/v1/funnels')).data!.data;
    expect(funnels).toHaveLength(1);
    expect(funnels[0]).toMatchObject({ name: 'Sales pipeline', is_default: true });
    expect(funnels[0]!.stages.length).toBeGreaterThanOrEqual(3);
    const deal = await createDeal(demoClient, { title: 'First demo deal', value: 1000 });
    expect(deal).toMatchObject({ funnel: { id: funnels[0]!.id, name: 'Sales pipeline' }, stage: { id: funnels[0]!.stages[0]!.id } });
  });
});
