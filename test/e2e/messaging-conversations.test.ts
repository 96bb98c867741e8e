import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAll } from '@crm/client';
import { eventsOf, type EventLog } from '../support/events';
import { addNumber, addTemplate, inbound, type TestNumber, uniquePhone } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { deactivateMember } from '../support/pipelines';
import { testSystem } from '../support/system';

describe('conversations, chat instances and templates', () => {
  let org: TestOrg;
  let other: TestOrg;
  let events: EventLog;
  let qr: TestNumber;
  let official: TestNumber;
  let conversationIds: string[] = [];

  beforeAll(async () => {
    [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
    events = await eventsOf(org.orgId);
    qr = await addNumber(org.orgId, 'qrcode', { name: 'QR one', phone: '+15550100001' });
    official = await addNumber(org.orgId, 'official', { name: 'Official one', isDefault: true });
    await addNumber(org.orgId, 'qrcode', { name: 'Offline', status: 'disconnected' });
    await addNumber(org.orgId, 'socialmsg', { name: 'A page (not a chat instance)' });
    await addTemplate(org.orgId, official.id, { name: 'welcome', language: 'en_US', category: 'marketing' });
    await addTemplate(org.orgId, official.id, { name: 'welcome', language: 'es', status: 'PENDING', category: 'marketing' });
    await addTemplate(org.orgId, official.id, { name: 'receipt', language: 'en_US', category: 'utility', text: 'Receipt {{1}}' });
    for (let i = 0; i < 5; i++) await inbound(i % 2 ? official : qr, { from: uniquePhone(), name: `Person ${i}`, text: `message ${i}` });
    conversationIds = (await listAll(org.client, '/v1/conversations')).map((c: any) => c.id);
  });
  afterAll(async () => {
    await events.stop();
  });

  it('lists conversations newest first with cursors, filters and sorts', async () => {
    expect(conversationIds).toHaveLength(5);
    const first = await org.raw.get('/v1/conversations?limit=2');
    expect(first.body.meta).toMatchObject({ total: 5, has_more: true });
    const second = await org.raw.get(`/v1/conversations?limit=2&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`);
    const third = await org.raw.get(`/v1/conversations?limit=2&cursor=${encodeURIComponent(second.body.meta.next_cursor)}`);
    expect(third.body.meta.has_more).toBe(false);
    expect(third.body.meta.next_cursor).toBeUndefined();
    const paged = [...first.body.data, ...second.body.data, ...third.body.data];
    expect(paged.map((c: any) => c.id)).toEqual(conversationIds);
    const created = paged.map((c: any) => c.created_at);
    expect([...created].sort().reverse()).toEqual(created);

    const chatapp = await org.client.GET('/v1/conversations', { params: { query: { channel: 'chatapp', status: 'open' } } });
    expect(chatapp.data!.data).toHaveLength(5);
    expect(chatapp.data!.meta.total).toBe(5);
    expect((await org.client.GET('/v1/conversations', { params: { query: { channel: 'socialmsg' } } })).data!.data).toHaveLength(0);
    const asc = (
      await org.client.GET('/v1/conversations', { params: { query: { sort: 'last_message_at', order: 'asc' } } })
    ).data!.data.map((c: any) => c.last_message_at);
    expect([...asc].sort()).toEqual(asc);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await org.client.GET('/v1/conversations', { params: { query: { updated_after: future } } })).data!.data).toHaveLength(0);

    for (const query of ['status=pending', 'channel=fax', 'sort=name', 'updated_after=yesterday', 'limit=0']) {
      const bad = await org.raw.get(`/v1/conversations?${query}`);
      expect([bad.status, bad.body.error.code, query]).toEqual([422, 'VALIDATION_ERROR', query]);
    }
    expect((await org.client.GET('/v1/conversations', { params: { query: { assigned_to: 'nope' } } })).error!.error.code).toBe(
      'INVALID_ID',
    );
    expect((await org.client.GET('/v1/conversations', { params: { query: { cursor: 'garbage' } } })).error!.error.code).toBe(
      'INVALID_CURSOR',
    );
  });

  it('assigns to an active member, unassigns, and treats the same assignee as no change', async () => {
    const [owner, seller] = org.memberIds;
    const id = conversationIds[0]!;
    const assigned = await org.raw.post(`/v1/conversations/${id}/assign`, { assigned_to: seller });
    expect(assigned.status).toBe(200);
    expect(assigned.body.data.assigned_to).toEqual({ id: seller, name: 'Seller Person' });
    await events.waitFor((all) =>
      all.some((e) => e.type === 'conversation.assigned' && e.data.object.id === id && e.data.object.assigned_to?.id === seller),
    );
    expect(
      (await org.client.GET('/v1/conversations', { params: { query: { assigned_to: seller } } })).data!.data.map((c: any) => c.id),
    ).toEqual([id]);

    const again = await org.raw.post(`/v1/conversations/${id}/assign`, { assigned_to: seller });
    expect(again.status).toBe(200);
    const unassigned = await org.raw.post(`/v1/conversations/${id}/assign`, { assigned_to: null });
    expect(unassigned.body.data.assigned_to).toBeNull();
    await events.waitFor((all) =>
      all.some((e) => e.type === 'conversation.assigned' && e.data.object.id === id && e.data.object.assigned_to === null),
    );
    expect(events.ofType('conversation.assigned').filter((e) => e.data.object.id === id)).toHaveLength(2);

    const otherMember = other.memberIds[0];
    const foreign = await org.raw.post(`/v1/conversations/${id}/assign`, { assigned_to: otherMember });
    expect([foreign.status, foreign.body.error.code]).toEqual([422, 'INVALID_REFERENCE']);
    await deactivateMember(owner!);
    const inactive = await org.raw.post(`/v1/conversations/${id}/assign`, { assigned_to: owner });
    expect(inactive.body.error.code).toBe('INVALID_REFERENCE');
    for (const [body, code] of [
      [{}, 'VALIDATION_ERROR'],
      [{ assigned_to: 'x' }, 'INVALID_ID'],
      [{ assigned_to: null, note: 1 }, 'UNKNOWN_FIELDS'],
    ] as const) {
      expect((await org.raw.post(`/v1/conversations/${id}/assign`, body)).body.error.code).toBe(code);
    }
  });

  it('closes once (INVALID_STATUS after), and a new inbound message reopens it', async () => {
    const id = conversationIds[1]!;
    const closed = await org.raw.post(`/v1/conversations/${id}/close`);
    expect(closed.status).toBe(200);
    expect(closed.body.data.status).toBe('closed');
    expect(closed.body.data.closed_at).not.toBeNull();
    await events.waitFor((all) => all.some((e) => e.type === 'conversation.closed' && e.data.object.id === id));
    const twice = await org.raw.post(`/v1/conversations/${id}/close`);
    expect([twice.status, twice.body.error.code]).toEqual([422, 'INVALID_STATUS']);
    expect(
      (await org.client.GET('/v1/conversations', { params: { query: { status: 'closed' } } })).data!.data.map((c: any) => c.id),
    ).toEqual([id]);

    const contactId = closed.body.data.contact.id;
    const contact = (await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contactId } } })).data!.data;
    const number = closed.body.data.chatapp_instance.id === qr.id ? qr : official;
    await inbound(number, { from: contact.phone!, text: 'me again' });
    const reopened = (await org.client.GET('/v1/conversations/{id}', { params: { path: { id: id } } })).data!.data;
    expect(reopened).toMatchObject({ status: 'open', closed_at: null, last_message_preview: 'me again', unread_count: 2 });
  });

  it('lists messages of a conversation in both orders, counting them in meta.total', async () => {
    const id = conversationIds[1]!;
    const desc = await org.client.GET('/v1/conversations/{id}/messages', { params: { path: { id: id } } });
    expect(desc.data!.meta.total).toBe(2);
    expect(desc.data!.data.map((m: any) => m.content)).toEqual(['me again', expect.stringMatching(/^message/)]);
    const asc = await org.client.GET('/v1/conversations/{id}/messages', {
      params: { path: { id: id }, query: { order: 'asc', limit: 1 } },
    });
    expect(asc.data!.data[0]!.content).toMatch(/^message/);
    expect(asc.data!.meta.has_more).toBe(true);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(
      (await org.client.GET('/v1/conversations/{id}/messages', { params: { path: { id: id }, query: { created_after: future } } })).data!
        .data,
    ).toHaveLength(0);
  });

  it('lists the chatapp numbers (not pages) with channel and status filters, and reads one', async () => {
    const all = await org.client.GET('/v1/chatapp-instances');
    expect(all.response.status).toBe(200);
    expect(all.data!.meta.total).toBe(3);
    expect(all.data!.data.map((i: any) => i.name).sort()).toEqual(['Official one', 'Offline', 'QR one']);
    const officialOnes = (await org.client.GET('/v1/chatapp-instances', { params: { query: { channel: 'official' } } })).data!.data;
    expect(officialOnes).toEqual([
      expect.objectContaining({ id: official.id, channel: 'official', is_default: true, status: 'connected' }),
    ]);
    expect(
      (await org.client.GET('/v1/chatapp-instances', { params: { query: { status: 'disconnected' } } })).data!.data.map((i: any) => i.name),
    ).toEqual(['Offline']);
    const one = await org.client.GET('/v1/chatapp-instances/{id}', { params: { path: { id: qr.id } } });
    expect(one.data!.data).toMatchObject({
      id: qr.id,
      name: 'QR one',
      channel: 'qrcode',
      phone_number: '+15550100001',
      is_default: false,
      warmup: { active: false, daily_limit: null },
    });
    expect((await org.raw.get('/v1/chatapp-instances?channel=socialmsg')).body.error.code).toBe('VALIDATION_ERROR');
  });

  it("lists an official number's templates with filters; a QR-code number has none", async () => {
    const templates = await org.client.GET('/v1/chatapp-instances/{id}/templates', { params: { path: { id: official.id } } });
    expect(templates.data!.meta.total).toBe(3);
    const receipt = templates.data!.data.find((t: any) => t.name === 'receipt')!;
    expect(receipt).toMatchObject({
      instance_id: official.id,
      language: 'en_US',
      category: 'utility',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Receipt {{1}}' }],
      variables: [{ key: '1', component: 'body' }],
    });
    expect(
      (
        await org.client.GET('/v1/chatapp-instances/{id}/templates', {
          params: { path: { id: official.id }, query: { status: 'PENDING' } },
        })
      ).data!.data.map((t: any) => t.language),
    ).toEqual(['es']);
    expect(
      (
        await org.client.GET('/v1/chatapp-instances/{id}/templates', {
          params: { path: { id: official.id }, query: { name: 'welcome', language: 'en_US' } },
        })
      ).data!.data,
    ).toHaveLength(1);
    expect(
      (
        await org.client.GET('/v1/chatapp-instances/{id}/templates', {
          params: { path: { id: official.id }, query: { category: 'utility' } },
        })
      ).data!.data.map((t: any) => t.name),
    ).toEqual(['receipt']);
    const qrTemplates = await org.raw.get(`/v1/chatapp-instances/${qr.id}/templates`);
    expect(qrTemplates.body).toMatchObject({ data: [], meta: { total: 0, has_more: false } });
    expect((await org.raw.get(`/v1/chatapp-instances/${official.id}/templates?status=approved`)).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('keeps organizations apart on every route (NOT_FOUND, empty lists)', async () => {
    const conversation = conversationIds[2]!;
    const message = (await org.client.GET('/v1/conversations/{id}/messages', { params: { path: { id: conversation } } })).data!.data[0]!.id;
    for (const path of [
      `/v1/conversations/${conversation}`,
      `/v1/conversations/${conversation}/messages`,
      `/v1/messages/${message}`,
      `/v1/chatapp-instances/${qr.id}`,
      `/v1/chatapp-instances/${official.id}/templates`,
    ]) {
      const response = await other.raw.get(path);
      expect([response.status, response.body.error?.code, path]).toEqual([404, 'NOT_FOUND', path]);
    }
    for (const path of [`/v1/conversations/${conversation}/assign`, `/v1/conversations/${conversation}/close`]) {
      const response = await other.raw.post(path, path.endsWith('assign') ? { assigned_to: null } : undefined);
      expect([response.status, response.body.error?.code, path]).toEqual([404, 'NOT_FOUND', path]);
    }
    for (const path of ['/v1/conversations', '/v1/chatapp-instances']) {
      const response = await other.raw.get(path);
      expect([response.body.data, response.body.meta.total]).toEqual([[], 0]);
    }
    expect((await org.client.GET('/v1/conversations/{id}', { params: { path: { id: conversation } } })).data!.data.status).toBe('open');
  });

  it('answers INVALID_ID and NOT_FOUND for path ids', async () => {
    const cases: Array<[string, string, number, string]> = [
      ['GET', '/v1/conversations/nope', 400, 'INVALID_ID'],
      ['GET', '/v1/conversations/ct_0000000000000000000000', 400, 'INVALID_ID'],
      ['GET', '/v1/conversations/cv_0000000000000000000000', 404, 'NOT_FOUND'],
      ['GET', '/v1/conversations/cv_0000000000000000000000/messages', 404, 'NOT_FOUND'],
      ['POST', '/v1/conversations/cv_0000000000000000000000/close', 404, 'NOT_FOUND'],
      ['GET', '/v1/messages/msg_0000000000000000000000', 404, 'NOT_FOUND'],
      ['GET', '/v1/messages/cv_0000000000000000000000', 400, 'INVALID_ID'],
      ['GET', '/v1/chatapp-instances/ci_0000000000000000000000', 404, 'NOT_FOUND'],
      ['GET', '/v1/chatapp-instances/bad/templates', 400, 'INVALID_ID'],
    ];
    for (const [method, path, status, code] of cases) {
      const response = await org.raw.request(method, path);
      expect([response.status, response.body.error.code, path]).toEqual([status, code, path]);
    }
  });

  it('requires the scope of each route', async () => {
    const readOnly = await org.keyWith(['read:conversations']);
    const routes: Array<[string, string, string, unknown?]> = [
      ['GET', '/v1/conversations', 'read:conversations'],
      ['POST', `/v1/conversations/${conversationIds[0]}/assign`, 'write:conversations', { assigned_to: null }],
      ['POST', `/v1/conversations/${conversationIds[0]}/close`, 'write:conversations'],
      ['POST', '/v1/messages/send', 'write:messages', { contact_id: 'ct_0000000000000000000000', channel: 'chatapp', content: 'x' }],
      ['GET', '/v1/messages/msg_0000000000000000000000', 'read:messages'],
      ['GET', '/v1/chatapp-instances', 'read:chatapp_instances'],
      ['GET', `/v1/chatapp-instances/${qr.id}`, 'read:chatapp_instances'],
      ['GET', `/v1/chatapp-instances/${qr.id}/templates`, 'read:chatapp_instances'],
    ];
    for (const [method, path, scope, body] of routes) {
      const response = await readOnly.raw.request(method, path, body === undefined ? {} : { body });
      if (scope === 'read:conversations') expect(response.status).toBe(200);
      else
        expect([
          response.status,
          response.body.error.code,
          response.body.error.required_scopes ?? response.body.error.details?.required_scopes,
        ]).toEqual([403, 'INSUFFICIENT_SCOPES', [scope]]);
    }
  });

  it('the OpenAPI document describes #48–#57 and their components', async () => {
    const document = (await (await fetch(`${testSystem().baseUrl}/api/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
      components: { schemas: Record<string, unknown> };
    };
    const expected: Array<[string, string, string]> = [
      ['/v1/conversations', 'get', 'listConversations'],
      ['/v1/conversations/{id}', 'get', 'getConversation'],
      ['/v1/conversations/{id}/messages', 'get', 'listConversationMessages'],
      ['/v1/conversations/{id}/assign', 'post', 'assignConversation'],
      ['/v1/conversations/{id}/close', 'post', 'closeConversation'],
      ['/v1/messages/send', 'post', 'sendMessage'],
      ['/v1/messages/{id}', 'get', 'getMessage'],
      ['/v1/chatapp-instances', 'get', 'listChatInstances'],
      ['/v1/chatapp-instances/{id}', 'get', 'getChatInstance'],
      ['/v1/chatapp-instances/{id}/templates', 'get', 'listTemplates'],
    ];
    for (const [path, method, operationId] of expected) expect(document.paths[path]?.[method]?.operationId, path).toBe(operationId);
    for (const name of ['Conversation', 'Message', 'ChatInstance', 'Template']) expect(document.components.schemas).toHaveProperty(name);
  });
});
