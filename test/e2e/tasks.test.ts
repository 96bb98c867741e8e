import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAll } from '@crm/client';
import { distinctEvents } from '../support/distinct-events';
import { eventsOf, type EventLog } from '../support/events';
import { createTestOrg, crmAdmin, type TestOrg } from '../support/orgs';
import { deactivateMember } from '../support/pipelines';
import { insertRawDeal } from '../support/raw-records';
import { createMember } from '../../services/crm/src/domain/admin';

const ABSENT = 'tk_0000000000000000000000';

describe('tasks: create, read, update, delete', () => {
  let org: TestOrg;
  let other: TestOrg;
  let events: EventLog;
  let contactId: string;
  let companyId: string;
  let dealId: string;

  beforeAll(async () => {
    [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
    events = await eventsOf(org.orgId);
    contactId = (await org.client.POST('/v1/contacts', { body: { name: 'Task contact' } })).data!.data.id;
    companyId = (await org.client.POST('/v1/companies', { body: { name: 'Task company' } })).data!.data.id;
    dealId = await insertRawDeal(org.orgId, { title: 'Task deal' });
  });
  afterAll(async () => {
    await events.stop();
  });

  it('creates an open task with defaults (201) and emits task.created', async () => {
    const response = await org.client.POST('/v1/tasks', { body: { title: 'Call back' } });
    expect(response.response.status).toBe(201);
    expect(response.data!.data).toMatchObject({
      title: 'Call back',
      description: null,
      type: 'todo',
      priority: 'normal',
      status: 'open',
      due_at: null,
      completed_at: null,
      assigned_to: null,
      contact: null,
      deal: null,
      company: null,
    });
    const task = response.data!.data;
    expect(task.id).toMatch(/^tk_/);
    await events.waitFor((received) => received.some((e) => e.type === 'task.created' && e.data.object.id === task.id));
    expect(events.ofType('task.created').find((e) => e.data.object.id === task.id)?.data).toEqual({ object: task });
  });

  it('links contact, deal, company and an assignee, rendered as references', async () => {
    const [, seller] = org.memberIds;
    const response = await org.client.POST('/v1/tasks', {
      body: {
        title: 'Demo',
        description: 'Show the product',
        type: 'meeting',
        priority: 'high',
        due_at: '2030-01-02T10:00:00+02:00',
        assigned_to: seller,
        contact_id: contactId,
        deal_id: dealId,
        company_id: companyId,
      },
    });
    expect(response.response.status).toBe(201);
    expect(response.data!.data).toMatchObject({
      type: 'meeting',
      priority: 'high',
      due_at: '2030-01-02T08:00:00.000Z',
      assigned_to: { id: seller, name: 'Seller Person' },
      contact: { id: contactId, name: 'Task contact' },
      deal: { id: dealId, title: 'Task deal' },
      company: { id: companyId, name: 'Task company' },
    });
    const read = await org.raw.get(`/v1/tasks/${response.data!.data.id}`);
    expect(read.body.data).toEqual(response.data!.data);
  });

  it('refuses references outside the organization, inactive members and bad bodies, writing nothing', async () => {
    const before = (await org.client.GET('/v1/tasks', { params: { query: { limit: 1 } } })).data!.meta.total;
    const otherContact = (await other.client.POST('/v1/contacts', { body: { name: 'Foreign' } })).data!.data.id;
    const otherDeal = await insertRawDeal(other.orgId);
    const otherCompany = (await other.client.POST('/v1/companies', { body: { name: 'Foreign' } })).data!.data.id;
    const deps = await crmAdmin();
    const refs: Array<[string, string]> = [
      ['contact_id', otherContact],
      ['deal_id', otherDeal],
      ['company_id', otherCompany],
      ['assigned_to', other.memberIds[0] ?? ''],
      ['contact_id', 'ct_0000000000000000000000'],
    ];
    for (const [field, id] of refs) {
      const response = await org.client.POST('/v1/tasks', { body: { title: 'Bad ref', [field]: id } });
      expect(response.response.status, field).toBe(422);
      expect(response.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field, id } });
    }
    // An inactive member cannot be assigned, though their name still renders on older tasks.
    const leaver = await createMember(deps, org.orgId, {
      name: 'Leaving Person',
      email: `leaver-${org.orgId}@test.example`,
      role: 'member',
    });
    const older = (await org.client.POST('/v1/tasks', { body: { title: 'Assigned before leaving', assigned_to: leaver.id } })).data!.data;
    await deactivateMember(leaver.id);
    const refused = await org.client.POST('/v1/tasks', { body: { title: 'Bad ref', assigned_to: leaver.id } });
    expect(refused.error!.error).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'assigned_to', id: leaver.id } });
    expect((await org.client.GET('/v1/tasks/{id}', { params: { path: { id: older.id } } })).data!.data.assigned_to).toEqual({
      id: leaver.id,
      name: 'Leaving Person',
    });
    await org.client.DELETE('/v1/tasks/{id}', { params: { path: { id: older.id } } });

    const cases: Array<[unknown, number, string]> = [
      [{}, 422, 'VALIDATION_ERROR'],
      [{ title: 7 }, 422, 'VALIDATION_ERROR'],
      [{ title: 'x', type: 'lunch' }, 422, 'VALIDATION_ERROR'],
      [{ title: 'x', priority: 'urgent' }, 422, 'VALIDATION_ERROR'],
      [{ title: 'x', due_at: 'tomorrow' }, 422, 'VALIDATION_ERROR'],
      [{ title: 'x', status: 'completed' }, 422, 'UNKNOWN_FIELDS'],
      [{ title: 'x', contact_id: 'ct_short' }, 400, 'INVALID_ID'],
      [{ title: 'x', deal_id: contactId }, 400, 'INVALID_ID'],
      [{ title: 'x', assigned_to: 'member-1' }, 400, 'INVALID_ID'],
    ];
    for (const [body, status, code] of cases) {
      const response = await org.raw.post('/v1/tasks', body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.error.code).toBe(code);
    }
    expect((await org.client.GET('/v1/tasks', { params: { query: { limit: 1 } } })).data!.meta.total).toBe(before);
  });

  it('PATCH changes the sent fields, clears links with null, refuses status and bad references without half-applying', async () => {
    const task = (
      await org.client.POST('/v1/tasks', { body: { title: 'Follow up', contact_id: contactId, due_at: '2030-05-01T00:00:00Z' } })
    ).data!.data;
    const patched = await org.client.PATCH('/v1/tasks/{id}', {
      params: { path: { id: task.id } },
      body: {
        title: 'Follow up now',
        type: 'call',
        contact_id: null,
        company_id: companyId,
        due_at: null,
      },
    });
    expect(patched.response.status).toBe(200);
    expect(patched.data!.data).toMatchObject({
      title: 'Follow up now',
      type: 'call',
      contact: null,
      company: { id: companyId },
      due_at: null,
      status: 'open',
    });

    const status = await org.client.PATCH('/v1/tasks/{id}', { params: { path: { id: task.id } }, body: { status: 'completed' } });
    expect(status.response.status).toBe(422);
    expect(status.error!.error).toMatchObject({ code: 'UNKNOWN_FIELDS', details: { fields: ['status'] } });

    const badRef = await org.client.PATCH('/v1/tasks/{id}', {
      params: { path: { id: task.id } },
      body: { title: 'Should not stick', deal_id: await insertRawDeal(other.orgId) },
    });
    expect(badRef.error!.error.code).toBe('INVALID_REFERENCE');
    expect((await org.client.GET('/v1/tasks/{id}', { params: { path: { id: task.id } } })).data!.data.title).toBe('Follow up now');

    expect((await org.client.PATCH('/v1/tasks/{id}', { params: { path: { id: 'tk_x' } }, body: { title: 'x' } })).error!.error.code).toBe(
      'INVALID_ID',
    );
    expect((await org.client.PATCH('/v1/tasks/{id}', { params: { path: { id: ABSENT } }, body: { title: 'x' } })).response.status).toBe(
      404,
    );
    expect((await other.client.PATCH('/v1/tasks/{id}', { params: { path: { id: task.id } }, body: { title: 'x' } })).response.status).toBe(
      404,
    );
  });

  it('deletes a task (204); it is then NOT_FOUND everywhere', async () => {
    const task = (await org.client.POST('/v1/tasks', { body: { title: 'Disposable' } })).data!.data;
    expect((await other.client.DELETE('/v1/tasks/{id}', { params: { path: { id: task.id } } })).response.status).toBe(404);
    const deleted = await org.client.DELETE('/v1/tasks/{id}', { params: { path: { id: task.id } } });
    expect(deleted.response.status).toBe(204);
    expect((await org.client.GET('/v1/tasks/{id}', { params: { path: { id: task.id } } })).response.status).toBe(404);
    expect((await org.client.DELETE('/v1/tasks/{id}', { params: { path: { id: task.id } } })).response.status).toBe(404);
    expect((await org.client.POST('/v1/tasks/{id}/complete', { params: { path: { id: task.id } } })).response.status).toBe(404);
    expect((await org.client.GET('/v1/tasks/{id}', { params: { path: { id: 'tk_nope' } } })).error!.error.code).toBe('INVALID_ID');
  });
});

describe('tasks: complete and reopen', () => {
  it('moves open → completed → open, refuses the wrong state and emits task.completed once', async () => {
    const org = await createTestOrg();
    const events = await eventsOf(org.orgId);
    try {
      const task = (await org.client.POST('/v1/tasks', { body: { title: 'Finish me' } })).data!.data;
      expect((await org.client.POST('/v1/tasks/{id}/reopen', { params: { path: { id: task.id } } })).error!.error.code).toBe(
        'INVALID_STATUS',
      );

      // Two concurrent completes: one wins, the other finds the task completed.
      const [a, b] = await Promise.all([org.raw.post(`/v1/tasks/${task.id}/complete`), org.raw.post(`/v1/tasks/${task.id}/complete`)]);
      expect([a.status, b.status].sort()).toEqual([200, 422]);
      const completed = a.status === 200 ? a.body.data : b.body.data;
      expect(completed).toMatchObject({ status: 'completed', completed_at: expect.any(String) });
      expect((a.status === 422 ? a : b).body.error).toMatchObject({ type: 'unprocessable', code: 'INVALID_STATUS' });

      const reopened = await org.client.POST('/v1/tasks/{id}/reopen', { params: { path: { id: task.id } } });
      expect(reopened.response.status).toBe(200);
      expect(reopened.data!.data).toMatchObject({ status: 'open', completed_at: null });

      await events.waitFor((received) => received.some((e) => e.type === 'task.completed'));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const completions = distinctEvents(events.received, (e) => e.type === 'task.completed');
      expect(completions).toHaveLength(1);
      expect(completions[0]?.data).toEqual({ object: completed });
      // Reopen emits nothing: one created and one completed, whatever the duplicates of at-least-once delivery.
      expect(
        distinctEvents(events.received)
          .map((e) => e.type)
          .sort(),
      ).toEqual(['task.completed', 'task.created']);
    } finally {
      await events.stop();
    }
  });
});

describe('tasks: list filters and sorts', () => {
  let org: TestOrg;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    org = await createTestOrg();
    const contact = (await org.client.POST('/v1/contacts', { body: { name: 'Filter contact' } })).data!.data.id;
    const company = (await org.client.POST('/v1/companies', { body: { name: 'Filter company' } })).data!.data.id;
    const deal = await insertRawDeal(org.orgId);
    const [owner] = org.memberIds;
    const rows: Array<[string, Record<string, unknown>]> = [
      ['a', { type: 'call', due_at: '2030-03-01T00:00:00Z', assigned_to: owner, contact_id: contact }],
      ['b', { type: 'email', due_at: '2030-01-01T00:00:00Z', deal_id: deal }],
      ['c', { type: 'call', company_id: company }],
      ['d', { type: 'todo', due_at: '2030-02-01T00:00:00Z', contact_id: contact }],
      ['e', { type: 'todo' }],
    ];
    for (const [title, body] of rows) {
      const response = await org.client.POST('/v1/tasks', { body: { title, ...body } });
      expect(response.response.status, JSON.stringify(response.error)).toBe(201);
      ids[title] = response.data!.data.id;
    }
    await org.client.POST('/v1/tasks/{id}/complete', { params: { path: { id: ids.d! } } });
    Object.assign(ids, { contact, company, deal, owner });
  });

  const titles = async (query: string) => {
    const response = await org.raw.get(`/v1/tasks?${query}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.meta.total).toBe(5);
    return (response.body.data as Array<{ title: string }>).map((task) => task.title);
  };

  it('filters by status, type, assignee, linked records and due window', async () => {
    expect(await titles('status=completed')).toEqual(['d']);
    expect(await titles('status=open&type=call')).toEqual(['c', 'a']);
    expect(await titles(`assigned_to=${ids.owner}`)).toEqual(['a']);
    expect(await titles(`contact_id=${ids.contact}`)).toEqual(['d', 'a']);
    expect(await titles(`deal_id=${ids.deal}`)).toEqual(['b']);
    expect(await titles(`company_id=${ids.company}`)).toEqual(['c']);
    expect(await titles('due_after=2030-01-15T00:00:00Z&due_before=2030-03-01T00:00:00Z')).toEqual(['d']);
    expect(await titles('due_after=2030-01-01T00:00:00Z&sort=due_at&order=asc')).toEqual(['b', 'd', 'a']);
  });

  it('sorts by due_at both ways across pages, tasks without a due date last in asc', async () => {
    const asc = await listAll(org.client, '/v1/tasks', { query: { sort: 'due_at', order: 'asc', limit: 2 } });
    expect(asc.map((task) => task.title)).toEqual(['b', 'd', 'a', 'c', 'e'].slice(0, 3).concat(asc.slice(3).map((task) => task.title)));
    expect(
      asc
        .slice(3)
        .map((task) => task.title)
        .sort(),
    ).toEqual(['c', 'e']);
    const desc = await listAll(org.client, '/v1/tasks', { query: { sort: 'due_at', order: 'desc', limit: 2 } });
    expect(desc.map((task) => task.title)).toEqual([...asc.map((task) => task.title)].reverse());
    const created = await listAll(org.client, '/v1/tasks', { query: { order: 'asc', limit: 2 } });
    expect(created.map((task) => task.title)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect((await listAll(org.client, '/v1/tasks', { query: { limit: 3 } })).map((task) => task.title)).toEqual(['e', 'd', 'c', 'b', 'a']);
  });

  it('refuses bad query values', async () => {
    for (const query of ['sort=title', 'status=done', 'type=lunch', 'due_after=soon', 'order=up']) {
      const response = await org.raw.get(`/v1/tasks?${query}`);
      expect(response.status, query).toBe(422);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await org.client.GET('/v1/tasks', { params: { query: { contact_id: 'ct_x' } } })).error!.error.code).toBe('INVALID_ID');
  });

  it('keeps organizations apart and checks scopes', async () => {
    const stranger = await createTestOrg();
    const list = await stranger.raw.get('/v1/tasks');
    expect(list.body.meta.total).toBe(0);
    expect((await stranger.raw.get(`/v1/tasks/${ids.a!}`)).status).toBe(404);
    expect((await stranger.client.POST('/v1/tasks/{id}/complete', { params: { path: { id: ids.a! } } })).response.status).toBe(404);

    const reader = await org.keyWith(['read:tasks']);
    const writer = await org.keyWith(['write:tasks']);
    expect((await reader.client.GET('/v1/tasks')).response.status).toBe(200);
    for (const response of [
      await reader.raw.post('/v1/tasks', { title: 'no' }),
      await reader.raw.post(`/v1/tasks/${ids.a}/complete`),
      await reader.raw.delete(`/v1/tasks/${ids.a}`),
      await writer.raw.get(`/v1/tasks/${ids.a}`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('INSUFFICIENT_SCOPES');
    }
  });
});
