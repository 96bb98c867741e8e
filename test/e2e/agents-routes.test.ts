import { newId } from '@crm/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentBody } from '../support/agents';
import { addNumber, type TestNumber } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

describe('AI agents: configuration routes (#70, #71, #74–#79)', () => {
  let org: TestOrg;
  let other: TestOrg;
  let qr: TestNumber;

  beforeAll(async () => {
    org = await createTestOrg({ plan: 'pro' });
    other = await createTestOrg({ plan: 'pro' });
    qr = await addNumber(org.orgId, 'qrcode', { name: 'Sales QR' });
    const contact = await org.client.POST('/v1/contacts', { body: { name: 'Tagged One', phone: '+15550009999', tags: ['vip'] } });
    expect(contact.response.status).toBe(201);
  });

  it('creates an inactive agent and answers it in snake_case', async () => {
    const body = agentBody({
      scope: { sources: ['chatapp'], chatappInstanceIds: [qr.id], tags: ['vip'] },
      behavior: {
        strategy: 'outside_business_hours',
        replyDelayMs: 1500,
        maxRepliesPerConversation: 5,
        handoff: {
          enabled: true,
          assignTo: org.memberIds[1],
          triggers: [
            { type: 'keywords', keywords: ['human'] },
            { type: 'consecutive_failures', count: 2 },
          ],
        },
        businessHours: { timezone: 'Europe/Lisbon', days: { mon: [['09:00', '17:00']] } },
      },
      aiConfig: { instructions: 'Be nice.', model: 'gpt-4o-mini', temperature: 0.5 },
    });
    const created = await org.raw.post('/v1/ai-agents', body);
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'Sales helper',
      type: 'sales',
      description: 'Answers first questions',
      scope: { sources: ['chatapp'], chatapp_instance_ids: [qr.id], tags: ['vip'] },
      behavior: {
        strategy: 'outside_business_hours',
        reply_delay_ms: 1500,
        max_replies_per_conversation: 5,
        handoff: {
          enabled: true,
          assign_to: { id: org.memberIds[1], name: 'Seller Person' },
          triggers: [
            { type: 'keywords', keywords: ['human'], count: null },
            { type: 'consecutive_failures', keywords: [], count: 2 },
          ],
        },
        business_hours: { timezone: 'Europe/Lisbon', days: { mon: [['09:00', '17:00']] } },
      },
      ai_config: { instructions: 'Be nice.', model: 'gpt-4o-mini', temperature: 0.5 },
      is_active: false,
    });
    expect(created.body.data.id).toMatch(/^ag_/);
    const read = await org.raw.get(`/v1/ai-agents/${created.body.data.id}`);
    expect(read.body.data).toEqual(created.body.data);
  });

  it('fills defaults: delay 3000 ms, no cap, handoff off, business hours null, model null', async () => {
    const { behavior: _b, ...rest } = agentBody();
    const created = await org.raw.post('/v1/ai-agents', { ...rest, behavior: { strategy: 'always' }, aiConfig: { instructions: 'Hi' } });
    expect(created.status).toBe(201);
    expect(created.body.data.behavior).toEqual({
      strategy: 'always',
      reply_delay_ms: 3000,
      max_replies_per_conversation: null,
      handoff: { enabled: false, assign_to: null, triggers: [] },
      business_hours: null,
    });
    expect(created.body.data.ai_config).toEqual({ instructions: 'Hi', model: null, temperature: 0.3 });
    expect(created.body.data.scope).toEqual({ sources: ['chatapp', 'photoapp', 'socialmsg'], chatapp_instance_ids: [], tags: [] });
  });

  it.each([
    ['scope.channels', { scope: { sources: ['chatapp'], channels: ['chatapp'] } }, 422, 'UNKNOWN_FIELDS'],
    ['an unknown root field', { colour: 'red' }, 422, 'UNKNOWN_FIELDS'],
    ['snake_case aiConfig', { ai_config: { instructions: 'x' } }, 422, 'UNKNOWN_FIELDS'],
    ['empty sources', { scope: { sources: [] } }, 422, 'VALIDATION_ERROR'],
    ['an unknown source', { scope: { sources: ['email'] } }, 422, 'VALIDATION_ERROR'],
    ['temperature above 1', { aiConfig: { instructions: 'x', temperature: 1.5 } }, 422, 'VALIDATION_ERROR'],
    ['temperature below 0', { aiConfig: { instructions: 'x', temperature: -0.1 } }, 422, 'VALIDATION_ERROR'],
    ['replyDelayMs above 60000', { behavior: { strategy: 'always', replyDelayMs: 60001 } }, 422, 'VALIDATION_ERROR'],
    ['a negative replyDelayMs', { behavior: { strategy: 'always', replyDelayMs: -1 } }, 422, 'VALIDATION_ERROR'],
    ['no strategy', { behavior: { replyDelayMs: 0 } }, 422, 'VALIDATION_ERROR'],
    ['an unknown strategy', { behavior: { strategy: 'sometimes' } }, 422, 'VALIDATION_ERROR'],
    ['an unknown type', { type: 'robot' }, 422, 'VALIDATION_ERROR'],
    ['no aiConfig', { aiConfig: undefined }, 422, 'VALIDATION_ERROR'],
    ['empty instructions', { aiConfig: { instructions: '  ' } }, 422, 'VALIDATION_ERROR'],
    [
      'handoff enabled without assignTo',
      { behavior: { strategy: 'always', handoff: { enabled: true, triggers: [{ type: 'model_request' }] } } },
      422,
      'VALIDATION_ERROR',
    ],
    [
      'an unknown trigger',
      { behavior: { strategy: 'always', handoff: { enabled: false, triggers: [{ type: 'moon' }] } } },
      422,
      'VALIDATION_ERROR',
    ],
    [
      'a bad business hour',
      { behavior: { strategy: 'outside_business_hours', businessHours: { days: { mon: [['18:00', '09:00']] } } } },
      422,
      'VALIDATION_ERROR',
    ],
    [
      'a bad timezone',
      { behavior: { strategy: 'outside_business_hours', businessHours: { timezone: 'Mars/Base' } } },
      422,
      'VALIDATION_ERROR',
    ],
    ['a malformed number id', { scope: { sources: ['chatapp'], chatappInstanceIds: ['nope'] } }, 400, 'INVALID_ID'],
    [
      'a malformed member id',
      { behavior: { strategy: 'always', handoff: { enabled: true, assignTo: 'x', triggers: [{ type: 'model_request' }] } } },
      400,
      'INVALID_ID',
    ],
  ])('refuses %s', async (_what, override, status, code) => {
    const body: Record<string, unknown> = agentBody(override as Record<string, unknown>);
    for (const [key, value] of Object.entries(override as Record<string, unknown>)) if (value === undefined) delete body[key];
    const response = await org.raw.post('/v1/ai-agents', body);
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    if (code === 'UNKNOWN_FIELDS' && _what === 'scope.channels') expect(response.body.error.details.fields).toEqual(['scope.channels']);
  });

  it('accepts only the models the deployment allows (AGENTS_ALLOWED_MODELS), with the allowed names', async () => {
    const allowed = (testSystem().env.AGENTS_ALLOWED_MODELS ?? '').split(',');
    const refused = await org.raw.post('/v1/ai-agents', agentBody({ aiConfig: { instructions: 'Hi.', model: 'gpt-5-ultra-expensive' } }));
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { fields: [{ field: 'aiConfig.model', allowed: expect.arrayContaining(allowed) }] },
    });
    const accepted = await org.raw.post('/v1/ai-agents', agentBody({ aiConfig: { instructions: 'Hi.', model: allowed[0] } }));
    expect(accepted.status, accepted.text).toBe(201);
  });

  it('refuses invalid JSON', async () => {
    const response = await org.raw.request('POST', '/v1/ai-agents', {
      rawBody: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('INVALID_JSON');
  });

  it.each([
    [
      'a number of another organization',
      () => ({ scope: { sources: ['chatapp'], chatappInstanceIds: [qr.id] } }),
      'scope.chatappInstanceIds',
    ],
    [
      'an unknown number',
      () => ({ scope: { sources: ['chatapp'], chatappInstanceIds: [newId('chatInstance')] } }),
      'scope.chatappInstanceIds',
    ],
    ['a tag no contact carries', () => ({ scope: { sources: ['chatapp'], tags: ['never-used-tag'] } }), 'scope.tags'],
    [
      'a member of another organization',
      () => ({
        behavior: { strategy: 'always', handoff: { enabled: true, assignTo: org.memberIds[0], triggers: [{ type: 'model_request' }] } },
      }),
      'behavior.handoff.assignTo',
    ],
  ])('answers INVALID_REFERENCE for %s', async (_what, override, field) => {
    const response = await other.raw.post('/v1/ai-agents', agentBody(override()));
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('INVALID_REFERENCE');
    expect(response.body.error.details.field).toBe(field);
  });

  it('PUT and PATCH replace the whole agent (no merge) and keep is_active', async () => {
    const created = (await org.raw.post('/v1/ai-agents', agentBody({ description: 'first' }))).body.data;
    await org.client.POST('/v1/ai-agents/{id}/activate', { params: { path: { id: created.id } } });
    const replaced = await org.raw.put(
      `/v1/ai-agents/${created.id}`,
      agentBody({ name: 'Renamed', description: undefined, type: 'support' }),
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({ id: created.id, name: 'Renamed', type: 'support', description: null, is_active: true });
    const patched = await org.raw.patch(
      `/v1/ai-agents/${created.id}`,
      agentBody({ name: 'Patched', behavior: { strategy: 'when_unassigned' } }),
    );
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ name: 'Patched', behavior: { strategy: 'when_unassigned', reply_delay_ms: 3000 } });
    const partial = await org.raw.patch(`/v1/ai-agents/${created.id}`, { name: 'Only a name' });
    expect(partial.status).toBe(422);
    expect(partial.body.error.code).toBe('VALIDATION_ERROR');
    const unknown = await org.raw.put(`/v1/ai-agents/${created.id}`, agentBody({ scope: { sources: ['chatapp'], channels: [] } }));
    expect(unknown.body.error.code).toBe('UNKNOWN_FIELDS');
    await org.client.POST('/v1/ai-agents/{id}/deactivate', { params: { path: { id: created.id } } });
  });

  it('activate and deactivate are idempotent', async () => {
    const created = (await org.raw.post('/v1/ai-agents', agentBody())).body.data;
    for (let i = 0; i < 2; i++) {
      const activated = await org.client.POST('/v1/ai-agents/{id}/activate', { params: { path: { id: created.id } } });
      expect(activated.response.status).toBe(200);
      expect(activated.data!.data.is_active).toBe(true);
    }
    for (let i = 0; i < 2; i++) {
      const deactivated = await org.client.POST('/v1/ai-agents/{id}/deactivate', { params: { path: { id: created.id } } });
      expect(deactivated.response.status).toBe(200);
      expect(deactivated.data!.data.is_active).toBe(false);
    }
  });

  it('plans: free has no agents; starter activates one agent at a time, also when two race', async () => {
    const free = await createTestOrg({ plan: 'free' });
    const refused = await free.raw.post('/v1/ai-agents', agentBody());
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'PLAN_RESTRICTION', type: 'forbidden' });

    const starter = await createTestOrg({ plan: 'starter' });
    const a = (await starter.raw.post('/v1/ai-agents', agentBody({ name: 'A' }))).body.data;
    const b = (await starter.raw.post('/v1/ai-agents', agentBody({ name: 'B' }))).body.data;
    const both = await Promise.all([
      starter.raw.post(`/v1/ai-agents/${a.id}/activate`),
      starter.raw.post(`/v1/ai-agents/${b.id}/activate`),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 403]);
    const loser = both.find((r) => r.status === 403);
    expect(loser?.body.error.code).toBe('PLAN_RESTRICTION');
    const winner = both[0]?.status === 200 ? a : b;
    const otherOne = winner === a ? b : a;
    expect((await starter.client.POST('/v1/ai-agents/{id}/activate', { params: { path: { id: winner.id } } })).response.status).toBe(200);
    await starter.client.POST('/v1/ai-agents/{id}/deactivate', { params: { path: { id: winner.id } } });
    expect((await starter.client.POST('/v1/ai-agents/{id}/activate', { params: { path: { id: otherOne.id } } })).response.status).toBe(200);
    // Deleting the active agent frees its slot.
    expect((await starter.client.DELETE('/v1/ai-agents/{id}', { params: { path: { id: otherOne.id } } })).response.status).toBe(204);
    expect((await starter.client.POST('/v1/ai-agents/{id}/activate', { params: { path: { id: winner.id } } })).response.status).toBe(200);
  });

  it('lists newest first with type and is_active filters; meta.total counts without filters', async () => {
    const fresh = await createTestOrg({ plan: 'enterprise' });
    const made = [];
    for (const type of ['sales', 'support', 'custom'])
      made.push((await fresh.raw.post('/v1/ai-agents', agentBody({ name: type, type }))).body.data);
    await fresh.raw.post(`/v1/ai-agents/${made[1].id}/activate`);
    const all = await fresh.raw.get('/v1/ai-agents');
    expect(all.body.data.map((a: any) => a.name)).toEqual(['custom', 'support', 'sales']);
    expect(all.body.meta).toMatchObject({ total: 3, has_more: false });
    const support = await fresh.raw.get('/v1/ai-agents?type=support');
    expect(support.body.data.map((a: any) => a.id)).toEqual([made[1]!.id]);
    expect(support.body.meta.total).toBe(3);
    const active = await fresh.client.GET('/v1/ai-agents', { params: { query: { is_active: 'true' } } });
    expect(active.data!.data.map((a: any) => a.id)).toEqual([made[1].id]);
    const inactive = await fresh.client.GET('/v1/ai-agents', { params: { query: { is_active: 'false', limit: 1 } } });
    expect(inactive.data!.data).toHaveLength(1);
    expect(inactive.data!.meta.has_more).toBe(true);
    const next = await fresh.raw.get(`/v1/ai-agents?is_active=false&limit=1&cursor=${inactive.data!.meta.next_cursor}`);
    expect(next.body.data[0].id).not.toBe(inactive.data!.data[0]!.id);
    expect((await fresh.raw.get('/v1/ai-agents?type=robot')).body.error.code).toBe('VALIDATION_ERROR');
    expect((await fresh.raw.get('/v1/ai-agents?is_active=yes')).body.error.code).toBe('VALIDATION_ERROR');
    expect((await fresh.client.GET('/v1/ai-agents', { params: { query: { cursor: 'garbage' } } })).error!.error.code).toBe(
      'INVALID_CURSOR',
    );
  });

  it('delete answers 204, then 404; ids are checked', async () => {
    const created = (await org.client.POST('/v1/ai-agents', { body: agentBody() })).data!.data;
    expect((await org.client.DELETE('/v1/ai-agents/{id}', { params: { path: { id: created.id } } })).response.status).toBe(204);
    for (const response of [
      await org.raw.get(`/v1/ai-agents/${created.id}`),
      await org.raw.delete(`/v1/ai-agents/${created.id}`),
      await org.raw.post(`/v1/ai-agents/${created.id}/activate`),
      await org.raw.put(`/v1/ai-agents/${created.id}`, agentBody()),
    ])
      expect(response.body.error.code).toBe('NOT_FOUND');
    expect((await org.client.GET('/v1/ai-agents')).data!.data.some((a: any) => a.id === created.id)).toBe(false);
    expect((await org.client.GET('/v1/ai-agents/{id}', { params: { path: { id: 'nope' } } })).error!.error.code).toBe('INVALID_ID');
    expect((await org.client.GET('/v1/ai-agents/{id}', { params: { path: { id: newId('contact') } } })).error!.error.code).toBe(
      'INVALID_ID',
    );
    expect((await org.client.POST('/v1/ai-agents/{id}/deactivate', { params: { path: { id: newId('aiAgent') } } })).response.status).toBe(
      404,
    );
  });

  it('isolates organizations', async () => {
    const created = (await org.client.POST('/v1/ai-agents', { body: agentBody() })).data!.data;
    expect((await other.client.GET('/v1/ai-agents/{id}', { params: { path: { id: created.id } } })).response.status).toBe(404);
    expect(
      (await other.client.PUT('/v1/ai-agents/{id}', { params: { path: { id: created.id } }, body: agentBody() })).response.status,
    ).toBe(404);
    expect((await other.client.POST('/v1/ai-agents/{id}/activate', { params: { path: { id: created.id } } })).response.status).toBe(404);
    expect((await other.client.DELETE('/v1/ai-agents/{id}', { params: { path: { id: created.id } } })).response.status).toBe(404);
    expect((await other.client.GET('/v1/ai-agents')).data!.data.some((a: any) => a.id === created.id)).toBe(false);
  });

  it('needs read:ai_agents to read and write:ai_agents to write', async () => {
    const reader = await org.keyWith(['read:ai_agents']);
    const writer = await org.keyWith(['write:ai_agents']);
    expect((await reader.client.GET('/v1/ai-agents')).response.status).toBe(200);
    expect((await reader.client.GET('/v1/ai-agents/runs')).response.status).toBe(200);
    const denied = await reader.client.POST('/v1/ai-agents', { body: agentBody() });
    expect(denied.response.status).toBe(403);
    expect(denied.error!.error.code).toBe('INSUFFICIENT_SCOPES');
    expect((await writer.client.GET('/v1/ai-agents')).error!.error.code).toBe('INSUFFICIENT_SCOPES');
    expect((await writer.client.GET('/v1/ai-agents/runs')).error!.error.code).toBe('INSUFFICIENT_SCOPES');
    expect((await writer.client.POST('/v1/ai-agents', { body: agentBody() })).response.status).toBe(201);
  });
});
