import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAll } from '@crm/client';
import { rawListAll } from '../support/api';
import { testSystem } from '../support/system';
import { eventsOf, type EventLog } from '../support/events';
import { addCustomField, createTestOrg, type TestOrg } from '../support/orgs';
import { createDeal, createFunnel, deactivateMember, insertRawCompany, reactivateMember } from '../support/pipelines';

let org: TestOrg;
let funnel: any;
let otherFunnel: any;
let events: EventLog;

beforeAll(async () => {
  org = await createTestOrg();
  funnel = await createFunnel(org.client, { name: 'Sales', stages: [{ name: 'Lead' }, { name: 'Proposal' }, { name: 'Negotiation' }] });
  otherFunnel = await createFunnel(org.client, { name: 'Renewals', stages: [{ name: 'Due' }, { name: 'Signed' }] });
  events = await eventsOf(org.orgId);
});

afterAll(async () => {
  await events?.stop();
});

const ids = (items: Array<{ id: string }>) => items.map((item) => item.id);

const contact = async (name: string) => {
  const response = await org.client.POST('/v1/contacts', { body: { name } });
  expect(response.response.status, JSON.stringify(response.error)).toBe(201);
  return response.data!.data.id as string;
};

const eventsFor = async (type: string, dealId: string, count = 1) =>
  (
    await events.waitFor((received) => received.filter((event) => event.type === type && event.data.object?.id === dealId).length >= count)
  ).filter((event) => event.type === type && event.data.object?.id === dealId);

describe('POST /v1/deals', () => {
  it('creates an open deal in the default funnel and its first stage, with the defaults, and emits deal.created', async () => {
    const ada = await contact('Ada');
    const company = await insertRawCompany(org.orgId, 'Acme');
    const response = await org.client.POST('/v1/deals', {
      body: {
        title: '  Big one ',
        contact_ids: [ada, ada],
        company_id: company,
        assigned_to: org.memberIds[1],
        expected_close_date: '2026-12-31',
        probability: 40,
        tags: ['hot', 'hot'],
        description: 'Important',
      },
    });
    expect(response.response.status).toBe(201);
    const deal = response.data!.data;
    expect(deal.id).toMatch(/^dl_/);
    expect(deal).toMatchObject({
      title: 'Big one',
      value: 0,
      currency: 'USD',
      status: 'open',
      funnel: { id: funnel.id, name: 'Sales' },
      stage: { id: funnel.stages[0].id, name: 'Lead' },
      contacts: [{ id: ada, name: 'Ada' }],
      company: { id: company, name: 'Acme' },
      assigned_to: { id: org.memberIds[1], name: 'Seller Person' },
      expected_close_date: '2026-12-31T00:00:00.000Z',
      probability: 40,
      lost_reason: null,
      closed_at: null,
      tags: ['hot'],
      custom_fields: {},
      notes_count: 0,
      description: 'Important',
    });
    const [created] = await eventsFor('deal.created', deal.id);
    expect(created?.data.object).toMatchObject({ id: deal.id, title: 'Big one', status: 'open', stage: { id: funnel.stages[0].id } });

    const contactRead = await org.client.GET('/v1/contacts/{id}', { params: { path: { id: ada } } });
    expect(contactRead.data!.data.deals_count).toBe(1);
    expect(contactRead.data!.data.deals).toEqual([
      { id: deal.id, title: 'Big one', value: 0, status: 'open', stage: { id: funnel.stages[0].id, name: 'Lead' } },
    ]);
  });

  it('places the deal at the given funnel and stage; a stage of another funnel is INVALID_REFERENCE', async () => {
    const deal = await createDeal(org.client, {
      title: 'Renewal',
      value: 120.5,
      funnel_id: otherFunnel.id,
      stage_id: otherFunnel.stages[1].id,
    });
    expect(deal).toMatchObject({ value: 120.5, funnel: { id: otherFunnel.id }, stage: { id: otherFunnel.stages[1].id, name: 'Signed' } });

    const wrong = await org.client.POST('/v1/deals', { body: { title: 'X', funnel_id: otherFunnel.id, stage_id: funnel.stages[0].id } });
    expect(wrong.response.status).toBe(422);
    expect(wrong.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'stage_id', id: funnel.stages[0].id } });
    const defaultFunnel = await org.client.POST('/v1/deals', { body: { title: 'X', stage_id: otherFunnel.stages[0].id } });
    expect(defaultFunnel.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'stage_id' } });
  });

  it('answers INVALID_REFERENCE funnel_id in an organization without any funnel', async () => {
    const empty = await createTestOrg();
    const response = await empty.raw.post('/v1/deals', { title: 'Nowhere to go' });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('INVALID_REFERENCE');
    expect(response.body.error.details.field).toBe('funnel_id');
    expect(response.body.error.message).toMatch(/no default funnel/);
  });

  it('validates the body: required title, value ≥ 0, types, unknown fields, malformed ids', async () => {
    const cases: Array<[Record<string, unknown>, string, number]> = [
      [{}, 'VALIDATION_ERROR', 422],
      [{ title: 'X', value: -1 }, 'VALIDATION_ERROR', 422],
      [{ title: 'X', value: '10' }, 'VALIDATION_ERROR', 422],
      [{ title: 'X', probability: 101 }, 'VALIDATION_ERROR', 422],
      [{ title: 'X', expected_close_date: 'next week' }, 'VALIDATION_ERROR', 422],
      [{ title: 'X', tags: 'hot' }, 'VALIDATION_ERROR', 422],
      [{ title: 'X', status: 'won' }, 'UNKNOWN_FIELDS', 422],
      [{ title: 'X', contact_ids: ['nope'] }, 'INVALID_ID', 400],
      [{ title: 'X', funnel_id: funnel.stages[0].id }, 'INVALID_ID', 400],
      [{ title: 'X', company_id: 'co_short' }, 'INVALID_ID', 400],
    ];
    for (const [body, code, status] of cases) {
      const response = await org.raw.post('/v1/deals', body);
      expect(response.body.error?.code, JSON.stringify(body)).toBe(code);
      expect(response.status, JSON.stringify(body)).toBe(status);
    }
    const unknown = await org.raw.post('/v1/deals', { title: 'X', stage: 'Lead' });
    expect(unknown.body.error.details.fields).toEqual(['stage']);
  });

  it('refuses references outside the organization, deleted contacts and inactive members with INVALID_REFERENCE', async () => {
    const other = await createTestOrg();
    const foreignContact = (await other.client.POST('/v1/contacts', { body: { name: 'Foreign' } })).data!.data.id;
    const foreignCompany = await insertRawCompany(other.orgId, 'Foreign Inc');
    const gone = await contact('Gone');
    await org.client.DELETE('/v1/contacts/{id}', { params: { path: { id: gone } } });
    const foreignMember = other.memberIds[0] ?? '';
    const inactive = org.memberIds[1] ?? '';
    await deactivateMember(inactive);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ contact_ids: [foreignContact] }, 'contact_ids', foreignContact],
      [{ contact_ids: [gone] }, 'contact_ids', gone],
      [{ company_id: foreignCompany }, 'company_id', foreignCompany],
      [{ assigned_to: foreignMember }, 'assigned_to', foreignMember],
      [{ assigned_to: inactive }, 'assigned_to', inactive],
    ];
    try {
      for (const [body, field, id] of cases) {
        const response = await org.client.POST('/v1/deals', { body: { title: 'X', ...body } });
        expect(response.response.status, JSON.stringify(body)).toBe(422);
        expect(response.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field, id } });
      }
    } finally {
      await reactivateMember(inactive);
    }
  });

  it('honours Idempotency-Key: a repeat creates nothing and the funnel total counts once', async () => {
    const pipeline = await createFunnel(org.client, { name: 'Idem' });
    const key = randomUUID();
    const body = { title: 'Once', value: 500, funnel_id: pipeline.id };
    const first = await org.raw.post('/v1/deals', body, { headers: { 'idempotency-key': key } });
    const second = await org.raw.post('/v1/deals', body, { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data.id).toBe(first.body.data.id);
    const read = (await org.client.GET('/v1/funnels/{id}', { params: { path: { id: pipeline.id } } })).data!.data;
    expect(read).toMatchObject({ total_deals: 1, total_value: 500 });
    expect((await listAll(org.client, '/v1/deals', { query: { funnel_id: pipeline.id } })).length).toBe(1);

    const reused = await org.raw.post('/v1/deals', { ...body, value: 1 }, { headers: { 'idempotency-key': key } });
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

describe('GET, DELETE and isolation', () => {
  it('reads a deal; another organization gets NOT_FOUND everywhere; malformed ids are INVALID_ID', async () => {
    const deal = await createDeal(org.client, { title: 'Private', value: 10 });
    const read = await org.client.GET('/v1/deals/{id}', { params: { path: { id: deal.id } } });
    expect(read.response.status).toBe(200);
    expect(read.data!.data).toEqual(deal);

    const other = await createTestOrg();
    const theirFunnel = await createFunnel(other.client);
    const paths: Array<[string, string, unknown?]> = [
      ['GET', `/v1/deals/${deal.id}`],
      ['PATCH', `/v1/deals/${deal.id}`, { title: 'Mine' }],
      ['DELETE', `/v1/deals/${deal.id}`],
      ['POST', `/v1/deals/${deal.id}/move`, { stage_id: theirFunnel.stages[1].id }],
      ['POST', `/v1/deals/${deal.id}/win`],
      ['POST', `/v1/deals/${deal.id}/lose`],
      ['POST', `/v1/deals/${deal.id}/reopen`],
      ['POST', `/v1/deals/${deal.id}/transfer`, { funnel_id: theirFunnel.id }],
    ];
    for (const [method, path, body] of paths) {
      const response = await other.raw.request(method, path, body === undefined ? {} : { body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    expect((await other.client.GET('/v1/deals')).data!.data).toEqual([]);
    expect((await org.client.GET('/v1/deals/{id}', { params: { path: { id: deal.id } } })).data!.data.title).toBe('Private');
    for (const bad of ['nope', 'ct_1234567890123456789012', 'dl_short']) {
      const response = await org.client.GET('/v1/deals/{id}', { params: { path: { id: bad } } });
      expect(response.response.status, bad).toBe(400);
      expect(response.error!.error.code).toBe('INVALID_ID');
    }
  });

  it('soft-deletes a deal: 204, gone from reads and lists, deal.deleted {object:{id}}', async () => {
    const deal = await createDeal(org.client, { title: 'Doomed' });
    const response = await org.client.DELETE('/v1/deals/{id}', { params: { path: { id: deal.id } } });
    expect(response.response.status).toBe(204);
    expect(await response.response.text()).toBe('');
    expect((await org.client.GET('/v1/deals/{id}', { params: { path: { id: deal.id } } })).response.status).toBe(404);
    expect((await org.client.DELETE('/v1/deals/{id}', { params: { path: { id: deal.id } } })).response.status).toBe(404);
    expect((await listAll(org.client, '/v1/deals')).some((item) => item.id === deal.id)).toBe(false);
    const [deleted] = await eventsFor('deal.deleted', deal.id);
    expect(deleted?.data).toEqual({ object: { id: deal.id } });
  });
});

describe('PATCH /v1/deals/{id}', () => {
  it('replaces, clears or keeps contact_ids; unlinks the company with null; replaces tags and custom_fields', async () => {
    await addCustomField(org.orgId, { entity: 'deal', key: 'source', type: 'select', options: ['inbound', 'outbound'] });
    await addCustomField(org.orgId, { entity: 'deal', key: 'seats', type: 'number' });
    const [a, b, c] = [await contact('A'), await contact('B'), await contact('C')];
    const company = await insertRawCompany(org.orgId, 'Globex');
    const deal = await createDeal(org.client, {
      title: 'Patchy',
      contact_ids: [a, b],
      company_id: company,
      tags: ['x', 'y'],
      custom_fields: { source: 'inbound', seats: 3 },
    });

    let response = await org.raw.patch(`/v1/deals/${deal.id}`, { title: 'Renamed' });
    expect(response.status).toBe(200);
    expect(response.body.data.contacts.map((item: { id: string }) => item.id)).toEqual([a, b]);
    expect(response.body.data.company).toEqual({ id: company, name: 'Globex' });

    response = await org.raw.patch(`/v1/deals/${deal.id}`, { contact_ids: [c], tags: ['z'], custom_fields: { seats: 5 } });
    expect(response.body.data).toMatchObject({ contacts: [{ id: c, name: 'C' }], tags: ['z'], custom_fields: { seats: 5 } });
    expect(response.body.data.custom_fields).not.toHaveProperty('source');

    response = await org.raw.patch(`/v1/deals/${deal.id}`, {
      contact_ids: [],
      company_id: null,
      value: 99.5,
      expected_close_date: null,
      probability: 70,
      description: null,
    });
    expect(response.body.data).toMatchObject({
      contacts: [],
      company: null,
      value: 99.5,
      expected_close_date: null,
      probability: 70,
      description: null,
      title: 'Renamed',
    });
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: c } } })).data!.data.deals_count).toBe(0);

    const badField = await org.raw.patch(`/v1/deals/${deal.id}`, { custom_fields: { source: 'carrier pigeon' } });
    expect(badField.status).toBe(422);
    expect(badField.body.error.code).toBe('VALIDATION_ERROR');
    expect(badField.body.error.details.fields[0].field).toBe('custom_fields.source');
  });

  it('refuses stage, funnel, status and their ids with UNKNOWN_FIELDS listing them', async () => {
    const deal = await createDeal(org.client, { title: 'Strict' });
    const response = await org.raw.patch(`/v1/deals/${deal.id}`, {
      stage: 'Won',
      funnel: 'x',
      status: 'won',
      stage_id: funnel.stages[1].id,
      funnel_id: funnel.id,
      title: 'ok',
    });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('UNKNOWN_FIELDS');
    expect([...response.body.error.details.fields].sort()).toEqual(['funnel', 'funnel_id', 'stage', 'stage_id', 'status']);
    expect((await org.client.GET('/v1/deals/{id}', { params: { path: { id: deal.id } } })).data!.data.title).toBe('Strict');
    expect((await org.raw.patch(`/v1/deals/${deal.id}`, { value: 'lots' })).body.error.code).toBe('VALIDATION_ERROR');
    expect(
      (
        await org.client.PATCH('/v1/deals/{id}', {
          params: { path: { id: deal.id } },
          body: { contact_ids: ['dl_1234567890123456789012'] },
        })
      ).error!.error.code,
    ).toBe('INVALID_ID');
    expect((await org.client.PATCH('/v1/deals/{id}', { params: { path: { id: deal.id } }, body: [1, 2] })).error!.error.code).toBe(
      'INVALID_JSON',
    );
  });

  it('changes nothing when one reference is invalid (all references are checked before the write)', async () => {
    const a = await contact('Kept');
    const deal = await createDeal(org.client, { title: 'Atomic', contact_ids: [a], value: 1 });
    const foreignCompany = await insertRawCompany((await createTestOrg()).orgId, 'Elsewhere');
    const response = await org.client.PATCH('/v1/deals/{id}', {
      params: { path: { id: deal.id } },
      body: {
        title: 'Changed',
        value: 2,
        contact_ids: [],
        company_id: foreignCompany,
      },
    });
    expect(response.response.status).toBe(422);
    expect(response.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'company_id', id: foreignCompany } });
    const read = (await org.client.GET('/v1/deals/{id}', { params: { path: { id: deal.id } } })).data!.data;
    expect(read).toMatchObject({ title: 'Atomic', value: 1, contacts: [{ id: a, name: 'Kept' }] });
    expect(read.updated_at).toBe(deal.updated_at);
  });

  it('emits deal.updated with previous values, and deal.assigned when assigned_to changes', async () => {
    const deal = await createDeal(org.client, { title: 'Evented', value: 5 });
    await org.client.PATCH('/v1/deals/{id}', { params: { path: { id: deal.id } }, body: { value: 6, title: 'Evented 2' } });
    const [updated] = await eventsFor('deal.updated', deal.id);
    expect(updated?.data.previous).toEqual({ value: 5, title: 'Evented' });
    expect(updated?.data.object).toMatchObject({ id: deal.id, value: 6, title: 'Evented 2' });

    const assigned = await org.client.PATCH('/v1/deals/{id}', {
      params: { path: { id: deal.id } },
      body: { assigned_to: org.memberIds[0] },
    });
    expect(assigned.data!.data.assigned_to).toEqual({ id: org.memberIds[0], name: 'Owner Person' });
    const [assignedEvent] = await eventsFor('deal.assigned', deal.id);
    expect(assignedEvent?.data.previous).toEqual({ assigned_to: null });
    expect(assignedEvent?.data.object.assigned_to).toEqual({ id: org.memberIds[0], name: 'Owner Person' });
    await eventsFor('deal.updated', deal.id, 2);

    // The same values again change nothing: no event.
    const same = await org.client.PATCH('/v1/deals/{id}', {
      params: { path: { id: deal.id } },
      body: { assigned_to: org.memberIds[0], value: 6 },
    });
    expect(same.response.status).toBe(200);
    await org.client.PATCH('/v1/deals/{id}', { params: { path: { id: deal.id } }, body: { assigned_to: null } });
    const all = await eventsFor('deal.assigned', deal.id, 2);
    expect(all[1]?.data.previous).toEqual({ assigned_to: { id: org.memberIds[0], name: 'Owner Person' } });
    expect(events.ofType('deal.updated').filter((event) => event.data.object.id === deal.id)).toHaveLength(3);
  });
});

describe('actions', () => {
  it('moves an open deal within its funnel, emits deal.stage.changed; the current stage is 200 with no event', async () => {
    const deal = await createDeal(org.client, { title: 'Mover' });
    const same = await org.client.POST('/v1/deals/{id}/move', {
      params: { path: { id: deal.id } },
      body: { stage_id: funnel.stages[0].id },
    });
    expect(same.response.status).toBe(200);
    const moved = await org.client.POST('/v1/deals/{id}/move', {
      params: { path: { id: deal.id } },
      body: { stage_id: funnel.stages[2].id },
    });
    expect(moved.response.status).toBe(200);
    expect(moved.data!.data.stage).toEqual({ id: funnel.stages[2].id, name: 'Negotiation' });
    const changed = await eventsFor('deal.stage.changed', deal.id);
    expect(changed).toHaveLength(1);
    expect(changed[0]?.data.previous).toEqual({ stage: { id: funnel.stages[0].id, name: 'Lead' } });

    const foreign = await org.client.POST('/v1/deals/{id}/move', {
      params: { path: { id: deal.id } },
      body: { stage_id: otherFunnel.stages[0].id },
    });
    expect(foreign.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'stage_id' } });
    expect((await org.raw.post(`/v1/deals/${deal.id}/move`, {})).body.error.code).toBe('VALIDATION_ERROR');
    expect(
      (await org.client.POST('/v1/deals/{id}/move', { params: { path: { id: deal.id } }, body: { stage_id: 'Lead' } })).error!.error.code,
    ).toBe('INVALID_ID');

    await org.client.POST('/v1/deals/{id}/win', { params: { path: { id: deal.id } } });
    const closed = await org.client.POST('/v1/deals/{id}/move', {
      params: { path: { id: deal.id } },
      body: { stage_id: funnel.stages[1].id },
    });
    expect(closed.response.status).toBe(422);
    expect(closed.error!.error.code).toBe('INVALID_STATUS');
  });

  it('wins, loses and reopens with closed_at and lost_reason; wrong states are INVALID_STATUS; deal.updated carries the previous status', async () => {
    const deal = await createDeal(org.client, { title: 'Fate' });
    const won = await org.client.POST('/v1/deals/{id}/win', { params: { path: { id: deal.id } } });
    expect(won.response.status).toBe(200);
    expect(won.data!.data.status).toBe('won');
    expect(won.data!.data.closed_at).toMatch(/Z$/);
    expect((await org.client.POST('/v1/deals/{id}/win', { params: { path: { id: deal.id } } })).error!.error.code).toBe('INVALID_STATUS');
    expect((await org.client.POST('/v1/deals/{id}/lose', { params: { path: { id: deal.id } } })).error!.error.code).toBe('INVALID_STATUS');

    const reopened = await org.client.POST('/v1/deals/{id}/reopen', { params: { path: { id: deal.id } } });
    expect(reopened.data!.data).toMatchObject({ status: 'open', closed_at: null, lost_reason: null });
    expect((await org.client.POST('/v1/deals/{id}/reopen', { params: { path: { id: deal.id } } })).error!.error).toMatchObject({
      code: 'INVALID_STATUS',
      type: 'unprocessable',
    });

    expect(
      (await org.client.POST('/v1/deals/{id}/lose', { params: { path: { id: deal.id } }, body: { lost_reason: 'x'.repeat(501) } })).error!
        .error.code,
    ).toBe('VALIDATION_ERROR');
    expect(
      (await org.client.POST('/v1/deals/{id}/lose', { params: { path: { id: deal.id } }, body: { reason: 'typo' } })).error!.error.code,
    ).toBe('UNKNOWN_FIELDS');
    const lost = await org.client.POST('/v1/deals/{id}/lose', {
      params: { path: { id: deal.id } },
      body: { lost_reason: 'Too expensive' },
    });
    expect(lost.data!.data).toMatchObject({ status: 'lost', lost_reason: 'Too expensive' });
    expect(lost.data!.data.closed_at).not.toBeNull();

    const updates = await eventsFor('deal.updated', deal.id, 3);
    expect(updates.map((event) => [event.data.previous.status, event.data.object.status])).toEqual([
      ['open', 'won'],
      ['won', 'open'],
      ['open', 'lost'],
    ]);
    expect(updates[1]?.data.previous.closed_at).toBe(won.data!.data.closed_at);
  });

  it('transfers to another funnel (first stage by default), keeps the status, emits deal.pipeline.transferred', async () => {
    const deal = await createDeal(org.client, { title: 'Traveller', funnel_id: funnel.id, stage_id: funnel.stages[1].id });
    await org.client.POST('/v1/deals/{id}/win', { params: { path: { id: deal.id } } });
    const moved = await org.client.POST('/v1/deals/{id}/transfer', {
      params: { path: { id: deal.id } },
      body: { funnel_id: otherFunnel.id },
    });
    expect(moved.response.status).toBe(200);
    expect(moved.data!.data).toMatchObject({
      status: 'won',
      funnel: { id: otherFunnel.id, name: 'Renewals' },
      stage: { id: otherFunnel.stages[0].id, name: 'Due' },
    });
    const [transferred] = await eventsFor('deal.pipeline.transferred', deal.id);
    expect(transferred?.data.previous).toEqual({
      funnel: { id: funnel.id, name: 'Sales' },
      stage: { id: funnel.stages[1].id, name: 'Proposal' },
    });

    const back = await org.client.POST('/v1/deals/{id}/transfer', {
      params: { path: { id: deal.id } },
      body: { funnel_id: funnel.id, stage_id: funnel.stages[2].id },
    });
    expect(back.data!.data.stage.id).toBe(funnel.stages[2].id);

    const same = await org.client.POST('/v1/deals/{id}/transfer', { params: { path: { id: deal.id } }, body: { funnel_id: funnel.id } });
    expect(same.response.status).toBe(422);
    expect(same.error!.error.code).toBe('VALIDATION_ERROR');
    const wrongStage = await org.client.POST('/v1/deals/{id}/transfer', {
      params: { path: { id: deal.id } },
      body: { funnel_id: otherFunnel.id, stage_id: funnel.stages[0].id },
    });
    expect(wrongStage.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'stage_id' } });
    const archived = await createFunnel(org.client, { name: 'Attic' });
    await org.client.PATCH('/v1/funnels/{id}', { params: { path: { id: archived.id } }, body: { is_archived: true } });
    const toArchived = await org.client.POST('/v1/deals/{id}/transfer', {
      params: { path: { id: deal.id } },
      body: { funnel_id: archived.id },
    });
    expect(toArchived.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'funnel_id', id: archived.id } });
    const foreign = await org.client.POST('/v1/deals/{id}/transfer', {
      params: { path: { id: deal.id } },
      body: {
        funnel_id: (await createFunnel((await createTestOrg()).client)).id,
      },
    });
    expect(foreign.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'funnel_id' } });
  });
});

describe('GET /v1/deals', () => {
  let lister: TestOrg;
  let pipeline: any;
  let deals: any[];

  beforeAll(async () => {
    lister = await createTestOrg();
    pipeline = await createFunnel(lister.client, { name: 'Board', stages: [{ name: 'Discovery' }, { name: 'Demo' }] });
    const second = await createFunnel(lister.client, { name: 'Other', stages: [{ name: 'demo' }] });
    deals = [];
    const specs = [
      { title: 'Alpha deal', value: 300, stage_id: pipeline.stages[0].id, tags: ['a'], expected_close_date: '2026-03-01' },
      {
        title: 'Beta deal',
        value: 100,
        stage_id: pipeline.stages[1].id,
        assigned_to: lister.memberIds[1],
        expected_close_date: '2026-01-01',
      },
      { title: 'Gamma', value: 200, stage_id: pipeline.stages[1].id, tags: ['a', 'b'] },
      { title: 'Delta deal', value: 100, funnel_id: second.id },
      { title: 'Epsilon', value: 50, stage_id: pipeline.stages[0].id, expected_close_date: '2026-02-01' },
    ];
    for (const spec of specs) deals.push(await createDeal(lister.client, spec));
    const lost = await lister.client.POST('/v1/deals/{id}/lose', { params: { path: { id: deals[4].id } } });
    expect(lost.response.status, JSON.stringify(lost.error)).toBe(200);
  });

  it('sorts by created_at descending by default and pages with cursors; meta.total ignores filters', async () => {
    const first = await lister.raw.get('/v1/deals?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.meta).toMatchObject({ total: 5, has_more: true });
    expect(ids(await listAll(lister.client, '/v1/deals', { query: { limit: 2 } }))).toEqual(ids([...deals].reverse()));
    const filtered = await lister.client.GET('/v1/deals', { params: { query: { status: 'lost' } } });
    expect(filtered.data!.meta.total).toBe(5);
    expect(ids(filtered.data!.data)).toEqual([deals[4].id]);
    const changed = await lister.raw.get(`/v1/deals?status=open&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`);
    expect(changed.body.error.code).toBe('INVALID_CURSOR');
  });

  it('sorts by value and by expected_close_date (no date sorts after every date) across pages', async () => {
    const byValue = await listAll(lister.client, '/v1/deals', { query: { sort: 'value', order: 'asc', limit: 2 } });
    expect(byValue.map((deal) => deal.value)).toEqual([50, 100, 100, 200, 300]);
    const byValueDesc = await listAll(lister.client, '/v1/deals', { query: { sort: 'value', limit: 1 } });
    expect(byValueDesc.map((deal) => deal.value)).toEqual([300, 200, 100, 100, 50]);
    const byClose = await listAll(lister.client, '/v1/deals', { query: { sort: 'expected_close_date', order: 'asc', limit: 2 } });
    expect(byClose.map((deal) => deal.title).slice(0, 3)).toEqual(['Beta deal', 'Epsilon', 'Alpha deal']);
    expect(byClose.slice(3).every((deal) => deal.expected_close_date === null)).toBe(true);
    const byCloseDesc = await listAll(lister.client, '/v1/deals', { query: { sort: 'expected_close_date', order: 'desc', limit: 2 } });
    expect(byCloseDesc.map((deal) => deal.title).slice(2)).toEqual(['Alpha deal', 'Epsilon', 'Beta deal']);
    expect((await lister.raw.get('/v1/deals?sort=title')).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('filters by search, funnel, stage id or name, status, assignee, tag and dates', async () => {
    const q = async (query: string) => ids(await rawListAll(lister.raw, `/v1/deals?${query}`));
    expect(await q('search=DEAL')).toEqual(ids([deals[3], deals[1], deals[0]]));
    expect(await q(`funnel_id=${pipeline.id}`)).toHaveLength(4);
    expect(await q(`stage_id=${pipeline.stages[1].id}`)).toEqual(ids([deals[2], deals[1]]));
    // A stage name matches the stages of that name in every funnel, case-insensitively.
    expect(await q('stage_id=DEMO')).toEqual(ids([deals[3], deals[2], deals[1]]));
    expect(await q(`stage_id=demo&funnel_id=${pipeline.id}`)).toEqual(ids([deals[2], deals[1]]));
    expect(await q('stage_id=Nowhere')).toEqual([]);
    expect(await q('status=open')).toHaveLength(4);
    expect(await q(`assigned_to=${lister.memberIds[1]}`)).toEqual([deals[1].id]);
    expect(await q('tag=b')).toEqual([deals[2].id]);
    expect(await q(`created_after=${encodeURIComponent(deals[3].created_at)}`)).toEqual(ids([deals[4], deals[3]]));
    expect(await q(`created_before=${encodeURIComponent(deals[1].created_at)}`)).toEqual([deals[0].id]);
    expect(await q(`updated_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect((await lister.raw.get('/v1/deals?status=closed')).body.error.code).toBe('VALIDATION_ERROR');
    expect((await lister.client.GET('/v1/deals', { params: { query: { funnel_id: 'abc' } } })).error!.error.code).toBe('INVALID_ID');
    expect((await lister.client.GET('/v1/deals', { params: { query: { created_after: 'yesterday' } } })).error!.error.code).toBe(
      'VALIDATION_ERROR',
    );
  });
});

describe('GET /v1/contacts/{id}/deals', () => {
  it("lists the contact's deals with a status filter; meta.total counts the contact's deals", async () => {
    const owner = await contact('Deal owner');
    const loner = await contact('No deals');
    const made: any[] = [];
    for (let i = 0; i < 3; i++) made.push(await createDeal(org.client, { title: `Contact deal ${i}`, contact_ids: [owner] }));
    await org.client.POST('/v1/deals/{id}/win', { params: { path: { id: made[0].id } } });

    const all = await org.client.GET('/v1/contacts/{id}/deals', { params: { path: { id: owner }, query: { limit: 2 } } });
    expect(all.response.status).toBe(200);
    expect(all.data!.meta).toMatchObject({ total: 3, has_more: true });
    expect(ids(await listAll(org.client, '/v1/contacts/{id}/deals', { path: { id: owner }, query: { limit: 2 } }))).toEqual(
      ids([...made].reverse()),
    );
    const won = await org.client.GET('/v1/contacts/{id}/deals', { params: { path: { id: owner }, query: { status: 'won' } } });
    expect(ids(won.data!.data)).toEqual([made[0].id]);
    expect(won.data!.meta.total).toBe(3);
    expect((await org.raw.get(`/v1/contacts/${loner}/deals`)).body).toMatchObject({ data: [], meta: { total: 0, has_more: false } });

    const other = await createTestOrg();
    expect((await other.client.GET('/v1/contacts/{id}/deals', { params: { path: { id: owner } } })).response.status).toBe(404);
    expect(
      (await org.client.GET('/v1/contacts/{id}/deals', { params: { path: { id: 'dl_1234567890123456789012' } } })).error!.error.code,
    ).toBe('INVALID_ID');
    const contactsOnly = await org.keyWith(['read:contacts']);
    const refused = await contactsOnly.client.GET('/v1/contacts/{id}/deals', { params: { path: { id: owner } } });
    expect(refused.response.status).toBe(403);
    expect(refused.error!.error).toMatchObject({ code: 'INSUFFICIENT_SCOPES', missing_scopes: ['read:deals'] });

    // The contact's embedded summaries show the stage's current name.
    await org.client.PATCH('/v1/funnels/{id}/stages/{stageId}', {
      params: { path: { id: funnel.id, stageId: funnel.stages[0].id } },
      body: { name: 'Lead (new)' },
    });
    const detail = await org.raw.get(`/v1/contacts/${owner}`);
    expect(detail.body.data.deals_count).toBe(3);
    expect(detail.body.data.deals.find((item: { id: string }) => item.id === made[1].id).stage.name).toBe('Lead (new)');
    await org.client.PATCH('/v1/funnels/{id}/stages/{stageId}', {
      params: { path: { id: funnel.id, stageId: funnel.stages[0].id } },
      body: { name: 'Lead' },
    });
  });
});

describe('scopes', () => {
  it('needs read:deals to read and write:deals to write', async () => {
    const reader = await org.keyWith(['read:deals']);
    expect((await reader.client.GET('/v1/deals')).response.status).toBe(200);
    const refused = await reader.client.POST('/v1/deals', { body: { title: 'No' } });
    expect(refused.response.status).toBe(403);
    expect(refused.error!.error).toMatchObject({
      code: 'INSUFFICIENT_SCOPES',
      required_scopes: ['write:deals'],
      missing_scopes: ['write:deals'],
    });
    const writer = await org.keyWith(['write:deals']);
    const created = await writer.client.POST('/v1/deals', { body: { title: 'Writer' } });
    expect(created.response.status).toBe(201);
    expect((await writer.raw.get(`/v1/deals/${created.data!.data.id}`)).body.error.code).toBe('INSUFFICIENT_SCOPES');
    expect((await writer.raw.post(`/v1/deals/${created.data!.data.id}/win`)).status).toBe(200);
  });
});

describe('concurrency', () => {
  it('keeps every change of concurrent PATCHes and actions on one deal, each with its event', async () => {
    const deal = await createDeal(org.client, { title: 'Busy', value: 1 });
    const patches = [
      { title: 'Busy 2' },
      { value: 2 },
      { probability: 50 },
      { description: 'd' },
      { tags: ['t'] },
      { assigned_to: org.memberIds[0] },
    ];
    const answers = await Promise.all([
      ...patches.map((body) => org.raw.patch(`/v1/deals/${deal.id}`, body)),
      org.raw.post(`/v1/deals/${deal.id}/move`, { stage_id: funnel.stages[1].id }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual(Array(7).fill(200));
    const read = (await org.client.GET('/v1/deals/{id}', { params: { path: { id: deal.id } } })).data!.data;
    expect(read).toMatchObject({
      title: 'Busy 2',
      value: 2,
      probability: 50,
      description: 'd',
      tags: ['t'],
      assigned_to: { id: org.memberIds[0] },
      stage: { id: funnel.stages[1].id },
    });
    await eventsFor('deal.updated', deal.id, 6);
    await eventsFor('deal.stage.changed', deal.id, 1);
    await eventsFor('deal.assigned', deal.id, 1);
  });
});

describe('OpenAPI', () => {
  it('describes the deal and funnel operations and their components', async () => {
    const document = (await (await fetch(`${testSystem().baseUrl}/api/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(document.paths['/v1/deals'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/v1/funnels/{id}'] ?? {}).sort()).toEqual(['get', 'patch']);
    expect(Object.keys(document.paths['/v1/contacts/{id}/deals'] ?? {})).toEqual(['get']);
    for (const path of [
      '/v1/deals/{id}/move',
      '/v1/deals/{id}/win',
      '/v1/deals/{id}/lose',
      '/v1/deals/{id}/reopen',
      '/v1/deals/{id}/transfer',
      '/v1/funnels/{id}/stages',
    ]) {
      expect(document.paths[path], path).toHaveProperty('post');
    }
    expect(document.components.schemas).toHaveProperty('Deal');
    expect(document.components.schemas).toHaveProperty('Funnel');
    expect(document.components.schemas).toHaveProperty('Stage');
  });
});
