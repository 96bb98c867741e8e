import { randomUUID } from 'node:crypto';
import { newId } from '@crm/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import { listAll } from '@crm/client';
import {
  createBroadcast,
  createContactsInOrder,
  digitsOf,
  expectStats,
  launch,
  recipientsOf,
  sendsOf,
  sleep,
  waitForFinished,
  type CreatedContact,
} from '../support/broadcasts';
import { addNumber, addTemplate, uniquePhone, type TestNumber } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';

const inAMonth = () => new Date(Date.now() + 30 * 24 * 3_600_000).toISOString();

/** Every key of a response, at any depth, is snake_case. */
function keysOf(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => keysOf(item, prefix));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => [`${prefix}${key}`, ...keysOf(child, `${prefix}${key}.`)]);
}

describe('broadcast records: create, read, list, update, delete, recipients (#58, #59, #61–#63, #69)', () => {
  let org: TestOrg;
  let other: TestOrg;
  let qr: TestNumber;
  let official: TestNumber;
  let official2: TestNumber;
  let bare: TestNumber;
  let foreignNumber: TestNumber;
  let promo: { id: string };
  let promoPt: { id: string };
  let onlyOnSecond: { id: string };
  let foreignContact: CreatedContact;
  /** With a phone, created in this order (the send order), plus one without a phone. */
  let people: CreatedContact[];

  const promoTemplate = (variables?: unknown[]) => ({
    templateId: promo.id,
    language: 'en_US',
    variables: variables ?? [
      { key: '1', component: 'body', sourceType: 'contact_field', sourceKey: 'first_name', fallback: 'friend' },
      { key: '2', component: 'body', sourceType: 'static', value: 'SPRING10' },
    ],
  });
  const qrBody = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    chatappInstanceIds: [qr.id],
    audience: { type: 'all' },
    message: { type: 'text', content: 'Hello!' },
    ...extra,
  });

  beforeAll(async () => {
    [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
    qr = await addNumber(org.orgId, 'qrcode', { name: 'QR main' });
    official = await addNumber(org.orgId, 'official', { name: 'Official main' });
    official2 = await addNumber(org.orgId, 'official', { name: 'Official second' });
    bare = await addNumber(org.orgId, 'official', { name: 'Official without templates' });
    foreignNumber = await addNumber(other.orgId, 'qrcode', { name: 'Foreign QR' });
    promo = (await addTemplate(org.orgId, official.id, { name: 'promo', category: 'marketing', text: 'Hi {{1}}, use {{2}}' })) as {
      id: string;
    };
    await addTemplate(org.orgId, official2.id, { name: 'promo', category: 'marketing', text: 'Hi {{1}}, use {{2}}' });
    promoPt = (await addTemplate(org.orgId, official.id, {
      name: 'promo',
      language: 'pt_BR',
      status: 'PENDING',
      category: 'marketing',
      text: 'Oi {{1}}, use {{2}}',
    })) as { id: string };
    onlyOnSecond = (await addTemplate(org.orgId, official2.id, { name: 'only_second', text: 'Hello' })) as { id: string };
    foreignContact = (await createContactsInOrder(other, [{ name: 'Foreign Person', phone: uniquePhone() }]))[0]!;
    people = await createContactsInOrder(org, [
      { name: 'Ana First', phone: uniquePhone(), tags: ['recipients'] },
      { name: 'Nuno Nophone', tags: ['recipients'] },
      { name: 'Bia Second', phone: uniquePhone(), tags: ['recipients'] },
      { name: 'Caio Third', phone: uniquePhone(), tags: ['recipients'] },
    ]);
  });

  it('creates a draft from a camelCase body and answers it in snake_case, the same on GET', async () => {
    const response = await org.raw.post('/v1/broadcasts', {
      name: 'Spring sale',
      description: 'For VIP leads',
      chatappInstanceIds: [official.id, official2.id],
      audience: {
        type: 'tags',
        tags: ['vip', 'lead'],
        tagsOperator: 'and',
        hasChatapp: true,
        filters: {
          source: 'import',
          createdAfter: '2025-01-01T00:00:00.000Z',
          createdBefore: '2030-01-01T00:00:00.000Z',
          excludeTags: ['blocked'],
        },
      },
      cloudTemplate: promoTemplate(),
      settings: { sendProfile: 'moderate' },
    });
    expect(response.status, response.text).toBe(201);
    const created = response.body.data;
    expect(created).toEqual({
      id: expect.stringMatching(/^bc_/),
      name: 'Spring sale',
      description: 'For VIP leads',
      status: 'draft',
      chatapp_instances: [
        { id: official.id, name: 'Official main', channel: 'official' },
        { id: official2.id, name: 'Official second', channel: 'official' },
      ],
      audience: {
        type: 'tags',
        tags: ['vip', 'lead'],
        tags_operator: 'and',
        contact_ids: [],
        has_chatapp: true,
        filters: {
          source: 'import',
          created_after: '2025-01-01T00:00:00.000Z',
          created_before: '2030-01-01T00:00:00.000Z',
          exclude_tags: ['blocked'],
        },
      },
      message: null,
      cloud_template: {
        template_id: promo.id,
        name: 'promo',
        language: 'en_US',
        category: 'marketing',
        variables: [
          { key: '1', component: 'body', source_type: 'contact_field', source_key: 'first_name', fallback: 'friend', value: null },
          { key: '2', component: 'body', source_type: 'static', source_key: null, fallback: null, value: 'SPRING10' },
        ],
      },
      settings: { send_profile: 'moderate' },
      scheduled_at: null,
      started_at: null,
      completed_at: null,
      stats: { total: 0, sent: 0, delivered: 0, read: 0, failed: 0, excluded: 0 },
      error: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(keysOf(created).filter((key) => /[A-Z]/.test(key))).toEqual([]);

    const read = await org.client.GET('/v1/broadcasts/{id}', { params: { path: { id: created.id } } });
    expect(read.response.status).toBe(200);
    expect(read.data!.data).toEqual(created);

    // A QR-code broadcast: a message, no template, the conservative profile by default.
    const plain = await createBroadcast(
      org.client,
      qrBody('Plain', { message: { type: 'image', mediaUrl: 'https://cdn.example.com/a.png', content: 'Look' } }),
    );
    expect(plain).toMatchObject({
      chatapp_instances: [{ id: qr.id, name: 'QR main', channel: 'qrcode' }],
      audience: { type: 'all', tags: [], tags_operator: null, contact_ids: [], has_chatapp: null, filters: null },
      message: { type: 'image', content: 'Look', media_url: 'https://cdn.example.com/a.png' },
      cloud_template: null,
      settings: { send_profile: 'conservative' },
    });
  });

  it('takes filter dates with any offset and answers them in UTC; refuses one an offset carries past year 9999', async () => {
    // Found by npm run fuzz: dates stored as sent broke every later answer about the broadcast (500 on GET and list).
    const filters = { createdAfter: '0656-02-11T19:08:44-19:09', createdBefore: '2026-03-01T09:00:03.89+05:30' };
    const created = await org.raw.post('/v1/broadcasts', qrBody('Offsets', { audience: { type: 'all', filters } }));
    expect(created.status, created.text).toBe(201);
    const utc = { created_after: '0656-02-12T14:17:44.000Z', created_before: '2026-03-01T03:30:03.890Z' };
    expect(created.body.data.audience.filters).toMatchObject(utc);
    const read = await org.raw.get(`/v1/broadcasts/${created.body.data.id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.audience.filters).toMatchObject(utc);
    const patched = await org.raw.patch(`/v1/broadcasts/${created.body.data.id}`, {
      audience: { type: 'all', filters: { createdAfter: '2026-01-01T00:00:00-05:00' } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data.audience.filters.created_after).toBe('2026-01-01T05:00:00.000Z');

    const late = await org.raw.post(
      '/v1/broadcasts',
      qrBody('Too late', { audience: { type: 'all', filters: { createdBefore: '9999-12-31T23:00:00-05:00' } } }),
    );
    expect(late.status, late.text).toBe(422);
    expect(late.body.error.details.fields).toEqual([
      { field: 'audience.filters.createdBefore', issue: 'must fall in the years 0000 to 9999 in UTC' },
    ]);
  });

  it('refuses invalid bodies with the catalogue codes and creates nothing', async () => {
    const refused = async (body: Record<string, unknown>, status: number, code: string) => {
      const response = await org.raw.post('/v1/broadcasts', body);
      expect(response.status, response.text).toBe(status);
      expect(response.body.error.code, response.text).toBe(code);
      return response.body.error;
    };

    // Filters belong inside audience.filters: at the root of audience (or of the body) they are unknown fields.
    const misplaced = await refused(
      qrBody('Refused 1', { audience: { type: 'all', source: 'import', excludeTags: ['x'] } }),
      422,
      'UNKNOWN_FIELDS',
    );
    expect(misplaced.type).toBe('unprocessable');
    expect(misplaced.details.fields).toEqual(expect.arrayContaining(['audience.source', 'audience.excludeTags']));
    expect((await refused(qrBody('Refused 2', { filters: { source: 'import' } }), 422, 'UNKNOWN_FIELDS')).details).toEqual({
      fields: ['filters'],
    });
    // Request bodies are camelCase: the snake_case name is not a synonym.
    const snake = await refused(
      { ...qrBody('Refused 3'), chatappInstanceIds: undefined, chatapp_instance_ids: [qr.id] },
      422,
      'UNKNOWN_FIELDS',
    );
    expect(snake.details.fields).toEqual(['chatapp_instance_ids']);

    // A contact_field variable without a fallback (spec §7 rule 2).
    const noFallback = await refused(
      {
        name: 'Refused 4',
        chatappInstanceIds: [official.id],
        audience: { type: 'all' },
        cloudTemplate: promoTemplate([
          { key: '1', component: 'body', sourceType: 'contact_field', sourceKey: 'first_name' },
          { key: '2', component: 'body', sourceType: 'static', value: 'X' },
        ]),
      },
      422,
      'VALIDATION_ERROR',
    );
    expect(noFallback.details.fields).toEqual([expect.objectContaining({ field: 'cloudTemplate.variables.0.fallback' })]);

    const fieldsOf = async (body: Record<string, unknown>) =>
      ((await refused(body, 422, 'VALIDATION_ERROR')).details.fields as Array<{ field: string }>).map((f) => f.field);
    expect(await fieldsOf({ ...qrBody('x'), name: undefined })).toEqual(['name']);
    expect(await fieldsOf(qrBody('Refused 5', { chatappInstanceIds: [] }))).toEqual(['chatappInstanceIds']);
    expect(await fieldsOf(qrBody('Refused 6', { audience: { type: 'tags' } }))).toEqual(['audience.tags']);
    expect(await fieldsOf(qrBody('Refused 7', { audience: { type: 'segment' } }))).toEqual(['audience.type']);
    expect(await fieldsOf(qrBody('Refused 8', { settings: { sendProfile: 'turbo' } }))).toEqual(['settings.sendProfile']);
    expect(
      await fieldsOf(
        qrBody('Refused 9', {
          audience: { type: 'all', filters: { createdAfter: '2026-02-01T00:00:00.000Z', createdBefore: '2026-01-01T00:00:00.000Z' } },
        }),
      ),
    ).toEqual(['audience.filters.createdBefore']);
    expect(
      await fieldsOf({
        ...qrBody('Refused 10'),
        cloudTemplate: promoTemplate([{ key: '1', component: 'body', sourceType: 'static', value: 'only one' }]),
        chatappInstanceIds: [official.id],
        message: undefined,
      }),
    ).toEqual(['cloudTemplate.variables']);

    // Malformed ids, in any place of the body.
    expect((await refused(qrBody('Refused 11', { chatappInstanceIds: ['not-an-id'] }), 400, 'INVALID_ID')).type).toBe('invalid_request');
    await refused(qrBody('Refused 12', { audience: { type: 'contacts', contactIds: ['ct_short'] } }), 400, 'INVALID_ID');
    await refused(
      {
        ...qrBody('Refused 13'),
        chatappInstanceIds: [official.id],
        message: undefined,
        cloudTemplate: { ...promoTemplate(), templateId: 'tpl_1' },
      },
      400,
      'INVALID_ID',
    );

    // Well-formed ids that do not resolve in this organization.
    const unknownNumber = newId('chatInstance');
    expect((await refused(qrBody('Refused 14', { chatappInstanceIds: [qr.id, unknownNumber] }), 422, 'INVALID_REFERENCE')).details).toEqual(
      {
        field: 'chatappInstanceIds',
        id: unknownNumber,
      },
    );
    expect((await refused(qrBody('Refused 15', { chatappInstanceIds: [foreignNumber.id] }), 422, 'INVALID_REFERENCE')).details.id).toBe(
      foreignNumber.id,
    );
    expect(
      (
        await refused(
          qrBody('Refused 16', { audience: { type: 'contacts', contactIds: [people[0]!.id, foreignContact.id] } }),
          422,
          'INVALID_REFERENCE',
        )
      ).details,
    ).toEqual({ field: 'audience.contactIds', id: foreignContact.id });

    // Providers and templates.
    await refused(qrBody('Refused 17', { chatappInstanceIds: [qr.id, official.id] }), 422, 'MIXED_PROVIDERS');
    await refused(qrBody('Refused 18', { cloudTemplate: promoTemplate() }), 422, 'TEMPLATE_ON_QRCODE_BROADCAST');
    const officialBody = (name: string, cloudTemplate: unknown, ids = [official.id]) => ({
      name,
      chatappInstanceIds: ids,
      audience: { type: 'all' },
      cloudTemplate,
    });
    await refused(officialBody('Refused 19', { ...promoTemplate(), language: 'en_GB' }), 422, 'TEMPLATE_NOT_FOUND');
    await refused(officialBody('Refused 20', { ...promoTemplate(), templateId: newId('template') }), 422, 'TEMPLATE_NOT_FOUND');
    await refused(officialBody('Refused 21', { templateId: onlyOnSecond.id, language: 'en_US' }), 422, 'TEMPLATE_NOT_FOUND');
    // Every number of the broadcast must have the template approved in this language.
    await refused(officialBody('Refused 22', promoTemplate(), [official.id, bare.id]), 422, 'TEMPLATE_NOT_FOUND');
    const pending = await refused(
      officialBody('Refused 23', { ...promoTemplate(), templateId: promoPt.id, language: 'pt_BR' }),
      422,
      'TEMPLATE_NOT_APPROVED',
    );
    expect(pending.type).toBe('unprocessable');

    const notJson = await org.raw.request('POST', '/v1/broadcasts', {
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('INVALID_JSON');

    const names = (await listAll(org.client, '/v1/broadcasts')).map((b: { name: string }) => b.name);
    expect(names.filter((name) => name.startsWith('Refused') || name === 'x')).toEqual([]);
  });

  it('limits broadcasts by plan: none on free, the aggressive profile only from pro', async () => {
    const free = await createTestOrg({ plan: 'free' });
    const freeQr = await addNumber(free.orgId, 'qrcode');
    const onFree = await free.raw.post('/v1/broadcasts', { ...qrBody('Free'), chatappInstanceIds: [freeQr.id] });
    expect(onFree.status).toBe(403);
    expect(onFree.body.error).toMatchObject({ code: 'PLAN_RESTRICTION', type: 'forbidden' });
    expect((await free.client.GET('/v1/broadcasts')).data!.data).toEqual([]);

    const starter = await createTestOrg({ plan: 'starter' });
    const starterQr = await addNumber(starter.orgId, 'qrcode');
    const starterBody = (profile: string) => ({
      ...qrBody(`Starter ${profile}`),
      chatappInstanceIds: [starterQr.id],
      settings: { sendProfile: profile },
    });
    const aggressive = await starter.raw.post('/v1/broadcasts', starterBody('aggressive'));
    expect(aggressive.status).toBe(403);
    expect(aggressive.body.error.code).toBe('PLAN_RESTRICTION');
    const moderate = await createBroadcast(starter.client, starterBody('moderate'));
    const upgraded = await starter.client.PATCH('/v1/broadcasts/{id}', {
      params: { path: { id: moderate.id } },
      body: { settings: { sendProfile: 'aggressive' } },
    });
    expect(upgraded.response.status).toBe(403);
    expect(upgraded.error!.error.code).toBe('PLAN_RESTRICTION');
    expect((await starter.client.GET('/v1/broadcasts/{id}', { params: { path: { id: moderate.id } } })).data!.data.settings).toEqual({
      send_profile: 'moderate',
    });

    const onPro = await createBroadcast(org.client, qrBody('Pro aggressive', { settings: { sendProfile: 'aggressive' } }));
    expect(onPro.settings).toEqual({ send_profile: 'aggressive' });
  });

  it('replays a create with the same Idempotency-Key: one broadcast; another body with the key is refused', async () => {
    const key = randomUUID();
    const body = qrBody(`Idempotent ${key}`);
    const first = await org.raw.post('/v1/broadcasts', body, { headers: { 'idempotency-key': key } });
    const second = await org.raw.post('/v1/broadcasts', body, { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data.id).toBe(first.body.data.id);
    const named = (await listAll(org.client, '/v1/broadcasts')).filter((b: { name: string }) => b.name === body.name);
    expect(named).toHaveLength(1);

    const reused = await org.raw.post('/v1/broadcasts', { ...body, name: 'Other' }, { headers: { 'idempotency-key': key } });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');

    // Two requests with one key at the same time make one broadcast; the second is a replay or IDEMPOTENCY_KEY_IN_USE.
    const raced = randomUUID();
    const racedBody = qrBody(`Raced ${raced}`);
    const answers = await Promise.all(
      [0, 1].map(() => org.raw.post('/v1/broadcasts', racedBody, { headers: { 'idempotency-key': raced } })),
    );
    expect(answers.some((a) => a.status === 201)).toBe(true);
    for (const answer of answers.filter((a) => a.status !== 201)) {
      expect(answer.status).toBe(409);
      expect(answer.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    }
    expect(new Set(answers.filter((a) => a.status === 201).map((a) => a.body.data.id)).size).toBe(1);
    expect((await listAll(org.client, '/v1/broadcasts')).filter((b: { name: string }) => b.name === racedBody.name)).toHaveLength(1);
  });

  it('lists newest first with status and created_at filters, cursor pages and an unfiltered meta.total', async () => {
    const lister = await createTestOrg();
    const number = await addNumber(lister.orgId, 'qrcode');
    const made: any[] = [];
    for (const name of ['First', 'Second', 'Third']) {
      made.push(await createBroadcast(lister.client, { ...qrBody(name), chatappInstanceIds: [number.id] }));
      await sleep(5);
    }
    const [first, second, third] = made;
    const scheduledAt = inAMonth();
    const scheduled = await lister.client.POST('/v1/broadcasts/{id}/schedule', {
      params: { path: { id: second.id } },
      body: { scheduledAt },
    });
    expect(scheduled.response.status, JSON.stringify(scheduled.error)).toBe(200);

    const all = await lister.client.GET('/v1/broadcasts');
    expect(all.response.status).toBe(200);
    expect(all.data!.data.map((b: { id: string }) => b.id)).toEqual([third.id, second.id, first.id]);
    expect(all.data!.meta).toMatchObject({ total: 3, has_more: false });
    expect(all.data!.meta.next_cursor).toBeUndefined();

    const page1 = await lister.raw.get('/v1/broadcasts?limit=2');
    expect(page1.body.data.map((b: { id: string }) => b.id)).toEqual([third.id, second.id]);
    expect(page1.body.meta).toMatchObject({ total: 3, has_more: true, next_cursor: expect.any(String) });
    const page2 = await lister.raw.get(`/v1/broadcasts?limit=2&cursor=${encodeURIComponent(page1.body.meta.next_cursor)}`);
    expect(page2.body.data.map((b: { id: string }) => b.id)).toEqual([first.id]);
    expect(page2.body.meta).toMatchObject({ total: 3, has_more: false });

    const byStatus = await lister.raw.get('/v1/broadcasts?status=scheduled');
    expect(byStatus.body.data.map((b: { id: string; status: string; scheduled_at: string }) => [b.id, b.status, b.scheduled_at])).toEqual([
      [second.id, 'scheduled', scheduledAt],
    ]);
    expect(byStatus.body.meta.total).toBe(3);
    expect(
      (await lister.client.GET('/v1/broadcasts', { params: { query: { status: 'draft' } } })).data!.data.map((b: { id: string }) => b.id),
    ).toEqual([third.id, first.id]);

    const after = await lister.client.GET('/v1/broadcasts', { params: { query: { created_after: second.created_at } } });
    expect(after.data!.data.map((b: { id: string }) => b.id)).toEqual([third.id, second.id]);
    const before = await lister.client.GET('/v1/broadcasts', { params: { query: { created_before: second.created_at } } });
    expect(before.data!.data.map((b: { id: string }) => b.id)).toEqual([first.id]);

    expect((await lister.client.GET('/v1/broadcasts', { params: { query: { limit: 0 } } })).error!.error.code).toBe('VALIDATION_ERROR');
    const badStatus = await lister.raw.get('/v1/broadcasts?status=running');
    expect(badStatus.status).toBe(422);
    expect(badStatus.body.error.details.fields[0]).toMatchObject({ field: 'status', allowed: expect.arrayContaining(['sending']) });
    const badCursor = await lister.client.GET('/v1/broadcasts', { params: { query: { cursor: 'garbage' } } });
    expect(badCursor.response.status).toBe(400);
    expect(badCursor.error!.error.code).toBe('INVALID_CURSOR');
    expect((await lister.client.GET('/v1/broadcasts', { params: { query: { limit: 500 } } })).response.status).toBe(200);
  });

  it('PATCH changes a draft or scheduled broadcast, checks the references it touches again, and keeps the rest', async () => {
    const draft = await createBroadcast(org.client, {
      name: 'Editable',
      description: 'before',
      chatappInstanceIds: [official.id],
      audience: { type: 'tags', tags: ['vip'], filters: { source: 'api' } },
      cloudTemplate: promoTemplate(),
    });
    const patch = (body: Record<string, unknown>) => org.raw.patch(`/v1/broadcasts/${draft.id}`, body);

    const renamed = await patch({ name: 'Edited', description: null, settings: { sendProfile: 'moderate' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data).toMatchObject({
      id: draft.id,
      status: 'draft',
      name: 'Edited',
      description: null,
      settings: { send_profile: 'moderate' },
      audience: draft.audience,
      cloud_template: draft.cloud_template,
      created_at: draft.created_at,
    });
    expect(Date.parse(renamed.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(draft.updated_at));

    // An object that is sent replaces the stored one: the filters go with the old audience.
    const audience = await patch({ audience: { type: 'contacts', contactIds: [people[0]!.id] } });
    expect(audience.body.data.audience).toEqual({
      type: 'contacts',
      tags: [],
      tags_operator: null,
      contact_ids: [people[0]!.id],
      has_chatapp: null,
      filters: null,
    });

    // A new number set must still suit the stored template; a refused change changes nothing.
    expect((await patch({ chatappInstanceIds: [official.id, qr.id] })).body.error.code).toBe('MIXED_PROVIDERS');
    expect((await patch({ chatappInstanceIds: [qr.id] })).body.error.code).toBe('TEMPLATE_ON_QRCODE_BROADCAST');
    expect((await patch({ chatappInstanceIds: [official.id, bare.id] })).body.error.code).toBe('TEMPLATE_NOT_FOUND');
    const twoNumbers = await patch({ chatappInstanceIds: [official.id, official2.id] });
    expect(twoNumbers.status, twoNumbers.text).toBe(200);
    expect(twoNumbers.body.data.chatapp_instances.map((i: { id: string }) => i.id)).toEqual([official.id, official2.id]);
    expect(twoNumbers.body.data.cloud_template).toEqual(draft.cloud_template);

    expect((await patch({ cloudTemplate: { ...promoTemplate(), templateId: promoPt.id, language: 'pt_BR' } })).body.error.code).toBe(
      'TEMPLATE_NOT_APPROVED',
    );
    const noFallback = await patch({
      cloudTemplate: promoTemplate([
        { key: '1', component: 'body', sourceType: 'contact_field', sourceKey: 'name' },
        { key: '2', component: 'body', sourceType: 'static', value: 'X' },
      ]),
    });
    expect(noFallback.status).toBe(422);
    expect(noFallback.body.error.code).toBe('VALIDATION_ERROR');
    const foreign = await patch({ audience: { type: 'contacts', contactIds: [foreignContact.id] } });
    expect(foreign.body.error).toMatchObject({
      code: 'INVALID_REFERENCE',
      details: { field: 'audience.contactIds', id: foreignContact.id },
    });
    // The status changes only through the action routes.
    expect((await patch({ status: 'completed' })).body.error).toMatchObject({ code: 'UNKNOWN_FIELDS', details: { fields: ['status'] } });
    expect((await patch({ audience: { type: 'all', excludeTags: ['x'] } })).body.error.code).toBe('UNKNOWN_FIELDS');

    const unchanged = (await org.client.GET('/v1/broadcasts/{id}', { params: { path: { id: draft.id } } })).data!.data;
    expect(unchanged).toEqual(twoNumbers.body.data);

    const cleared = await patch({ cloudTemplate: null });
    expect(cleared.body.data.cloud_template).toBeNull();

    // A scheduled broadcast stays scheduled at its time.
    const scheduledAt = inAMonth();
    const later = await createBroadcast(org.client, qrBody('Scheduled edit'));
    expect(
      (await org.client.POST('/v1/broadcasts/{id}/schedule', { params: { path: { id: later.id } }, body: { scheduledAt } })).response
        .status,
    ).toBe(200);
    const edited = await org.client.PATCH('/v1/broadcasts/{id}', {
      params: { path: { id: later.id } },
      body: { name: 'Scheduled, edited', message: { content: 'New text' } },
    });
    expect(edited.response.status, JSON.stringify(edited.error)).toBe(200);
    expect(edited.data!.data).toMatchObject({
      name: 'Scheduled, edited',
      status: 'scheduled',
      scheduled_at: scheduledAt,
      message: { type: 'text', content: 'New text', media_url: null },
    });
  });

  it('PATCH answers INVALID_STATUS once a broadcast was launched or cancelled', async () => {
    const launched = await createBroadcast(org.client, qrBody('Launched', { audience: { type: 'contacts', contactIds: [people[0]!.id] } }));
    await launch(org.client, launched.id);
    const whileRunning = await org.client.PATCH('/v1/broadcasts/{id}', {
      params: { path: { id: launched.id } },
      body: { name: 'Too late' },
    });
    expect(whileRunning.response.status).toBe(422);
    expect(whileRunning.error!.error).toMatchObject({ code: 'INVALID_STATUS', type: 'unprocessable' });
    const done = await waitForFinished(org.client, launched.id);
    expect(done.status).toBe('completed');
    expect(
      (await org.client.PATCH('/v1/broadcasts/{id}', { params: { path: { id: launched.id } }, body: { name: 'Too late' } })).error!.error
        .code,
    ).toBe('INVALID_STATUS');

    const cancelled = await createBroadcast(org.client, qrBody('Cancelled'));
    expect(
      (await org.client.POST('/v1/broadcasts/{id}/schedule', { params: { path: { id: cancelled.id } }, body: { scheduledAt: inAMonth() } }))
        .response.status,
    ).toBe(200);
    expect((await org.client.POST('/v1/broadcasts/{id}/cancel', { params: { path: { id: cancelled.id } } })).response.status).toBe(200);
    expect(
      (await org.client.PATCH('/v1/broadcasts/{id}', { params: { path: { id: cancelled.id } }, body: { description: 'x' } })).error!.error
        .code,
    ).toBe('INVALID_STATUS');
    expect((await org.client.GET('/v1/broadcasts/{id}', { params: { path: { id: launched.id } } })).data!.data.name).toBe('Launched');
  });

  it('DELETE removes drafts and finished broadcasts, and refuses one that sends or is paused until it is cancelled', async () => {
    const draft = await createBroadcast(org.client, qrBody('Delete me'));
    const deleted = await org.client.DELETE('/v1/broadcasts/{id}', { params: { path: { id: draft.id } } });
    expect(deleted.response.status).toBe(204);
    expect(await deleted.response.text()).toBe('');
    expect((await org.client.GET('/v1/broadcasts/{id}', { params: { path: { id: draft.id } } })).error!.error.code).toBe('NOT_FOUND');
    expect((await org.client.DELETE('/v1/broadcasts/{id}', { params: { path: { id: draft.id } } })).response.status).toBe(404);

    const scheduled = await createBroadcast(org.client, qrBody('Scheduled delete'));
    await org.client.POST('/v1/broadcasts/{id}/schedule', { params: { path: { id: scheduled.id } }, body: { scheduledAt: inAMonth() } });
    expect((await org.client.DELETE('/v1/broadcasts/{id}', { params: { path: { id: scheduled.id } } })).response.status).toBe(204);

    // Twelve recipients at 4 messages/s: about three seconds of sending.
    const crowd = await createContactsInOrder(
      org,
      Array.from({ length: 12 }, (_, i) => ({ name: `Crowd ${i}`, phone: uniquePhone() })),
    );
    const running = await createBroadcast(
      org.client,
      qrBody('Running', { audience: { type: 'contacts', contactIds: crowd.map((c) => c.id) } }),
    );
    await launch(org.client, running.id);
    const whileSending = await org.client.DELETE('/v1/broadcasts/{id}', { params: { path: { id: running.id } } });
    expect(whileSending.response.status).toBe(422);
    expect(whileSending.error!.error.code).toBe('INVALID_STATUS');
    expect((await org.client.POST('/v1/broadcasts/{id}/pause', { params: { path: { id: running.id } } })).response.status).toBe(200);
    expect((await org.client.DELETE('/v1/broadcasts/{id}', { params: { path: { id: running.id } } })).error!.error.code).toBe(
      'INVALID_STATUS',
    );
    expect((await org.client.POST('/v1/broadcasts/{id}/cancel', { params: { path: { id: running.id } } })).response.status).toBe(200);
    expect((await org.client.DELETE('/v1/broadcasts/{id}', { params: { path: { id: running.id } } })).response.status).toBe(204);
    expect((await org.client.GET('/v1/broadcasts/{id}/recipients', { params: { path: { id: running.id } } })).response.status).toBe(404);

    const finished = await createBroadcast(org.client, qrBody('Finished', { audience: { type: 'contacts', contactIds: [people[2]!.id] } }));
    await launch(org.client, finished.id);
    await waitForFinished(org.client, finished.id);
    expect((await org.client.DELETE('/v1/broadcasts/{id}', { params: { path: { id: finished.id } } })).response.status).toBe(204);
  });

  it('lists the recipients in send order (oldest contact first) with their message, by status and by page', async () => {
    // Given newest first: the send order is still the contacts' creation order.
    const ids = [...people].reverse().map((c) => c.id);
    const broadcast = await createBroadcast(org.client, qrBody('Recipients', { audience: { type: 'contacts', contactIds: ids } }));
    const before = await org.client.GET('/v1/broadcasts/{id}/recipients', { params: { path: { id: broadcast.id } } });
    expect(before.response.status).toBe(200);
    expect(before.data!.data).toEqual([]);
    expect(before.data!.meta.total).toBe(0);

    const sendsBefore = (await sendsOf(qr)).length;
    await launch(org.client, broadcast.id);
    const done = await waitForFinished(org.client, broadcast.id);
    expect(done).toMatchObject({ status: 'completed', stats: { total: 3, sent: 3, failed: 0, excluded: 1 } });
    await expectStats(org.client, broadcast.id, { total: 3, sent: 3, delivered: 3, read: 3, failed: 0, excluded: 1 });

    const recipients = await recipientsOf(org.client, broadcast.id);
    expect(recipients.map((r) => [r.contact.name, r.status, r.exclusion_reason])).toEqual([
      ['Ana First', 'read', null],
      ['Nuno Nophone', 'excluded', 'no_chatapp'],
      ['Bia Second', 'read', null],
      ['Caio Third', 'read', null],
    ]);
    expect(recipients.map((r) => r.contact.id)).toEqual(people.map((c) => c.id));
    const excluded = recipients[1];
    expect(excluded).toEqual({
      contact: { id: people[1]!.id, name: 'Nuno Nophone' },
      status: 'excluded',
      message_id: null,
      exclusion_reason: 'no_chatapp',
      error: null,
      sent_at: null,
    });
    const sent = recipients.filter((r) => r.status === 'read');
    for (const recipient of sent) {
      expect(recipient).toMatchObject({ message_id: expect.stringMatching(/^msg_/), error: null, sent_at: expect.stringMatching(/Z$/) });
      const message = (await org.client.GET('/v1/messages/{id}', { params: { path: { id: recipient.message_id } } })).data!.data;
      expect(message).toMatchObject({
        contact_id: recipient.contact.id,
        content: 'Hello!',
        status: 'read',
        sender: { type: 'broadcast', id: broadcast.id, name: 'Recipients' },
      });
    }
    // The provider got the three (a few sends may be in flight at once, so not necessarily in this order).
    const withPhone = people.filter((c) => c.phone);
    expect(
      (await sendsOf(qr))
        .slice(sendsBefore)
        .map((s) => s.to)
        .sort(),
    ).toEqual(withPhone.map((c) => `${digitsOf(c.phone!)}@c.chatapp`).sort());

    const page1 = await org.raw.get(`/v1/broadcasts/${broadcast.id}/recipients?limit=3`);
    expect(page1.body.data.map((r: { contact: { id: string } }) => r.contact.id)).toEqual(people.slice(0, 3).map((c) => c.id));
    expect(page1.body.meta).toMatchObject({ total: 4, has_more: true, next_cursor: expect.any(String) });
    const page2 = await org.raw.get(
      `/v1/broadcasts/${broadcast.id}/recipients?limit=3&cursor=${encodeURIComponent(page1.body.meta.next_cursor)}`,
    );
    expect(page2.body.data.map((r: { contact: { id: string } }) => r.contact.id)).toEqual([people[3]!.id]);
    expect(page2.body.meta.has_more).toBe(false);

    const onlyExcluded = await org.client.GET('/v1/broadcasts/{id}/recipients', {
      params: { path: { id: broadcast.id }, query: { status: 'excluded' } },
    });
    expect(onlyExcluded.data!.data.map((r: { contact: { id: string } }) => r.contact.id)).toEqual([people[1]!.id]);
    expect(onlyExcluded.data!.meta.total).toBe(4);
    expect(
      (await org.client.GET('/v1/broadcasts/{id}/recipients', { params: { path: { id: broadcast.id }, query: { status: 'failed' } } }))
        .data!.data,
    ).toEqual([]);
    expect((await org.raw.get(`/v1/broadcasts/${broadcast.id}/recipients?status=done`)).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('answers INVALID_ID for malformed path ids and NOT_FOUND for unknown ones', async () => {
    for (const [method, path] of [
      ['get', '/v1/broadcasts/nope'],
      ['patch', '/v1/broadcasts/ct_0000000000000000000000'],
      ['delete', '/v1/broadcasts/bc_short'],
      ['post', '/v1/broadcasts/nope/launch'],
      ['get', '/v1/broadcasts/nope/recipients'],
    ] as const) {
      const response = await org.raw.request(method.toUpperCase(), path, method === 'patch' ? { body: { name: 'x' } } : {});
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(response.body.error.code).toBe('INVALID_ID');
    }
    // The literal path is never read as an id.
    const wrongMethod = await org.raw.get('/v1/broadcasts/audience/estimate');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error.code).toBe('METHOD_NOT_ALLOWED');
    const unknown = newId('broadcast');
    const missing = await org.client.GET('/v1/broadcasts/{id}', { params: { path: { id: unknown } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error!.error).toMatchObject({ code: 'NOT_FOUND', type: 'not_found' });
  });

  it('keeps broadcasts to their organization: another one gets NOT_FOUND on every id route and does not see them', async () => {
    const mine = await createBroadcast(org.client, qrBody('Private'));
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/v1/broadcasts/${mine.id}`],
      ['PATCH', `/v1/broadcasts/${mine.id}`, { name: 'Hijacked' }],
      ['DELETE', `/v1/broadcasts/${mine.id}`],
      ['POST', `/v1/broadcasts/${mine.id}/launch`, {}],
      ['POST', `/v1/broadcasts/${mine.id}/schedule`, { scheduledAt: inAMonth() }],
      ['POST', `/v1/broadcasts/${mine.id}/pause`],
      ['POST', `/v1/broadcasts/${mine.id}/resume`, {}],
      ['POST', `/v1/broadcasts/${mine.id}/cancel`],
      ['GET', `/v1/broadcasts/${mine.id}/recipients`],
    ];
    for (const [method, path, body] of routes) {
      const response = await other.raw.request(method, path, body === undefined ? {} : { body });
      expect(response.status, `${method} ${path}: ${response.text}`).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    expect((await listAll(other.client, '/v1/broadcasts')).map((b: { id: string }) => b.id)).not.toContain(mine.id);
    const still = (await org.client.GET('/v1/broadcasts/{id}', { params: { path: { id: mine.id } } })).data!.data;
    expect(still).toEqual(mine);
  });

  it('needs read:broadcasts to read and estimate, write:broadcasts to change (neither implies the other)', async () => {
    const reader = await org.keyWith(['read:broadcasts']);
    const writer = await org.keyWith(['write:broadcasts']);
    const mine = await createBroadcast(org.client, qrBody('Scoped'));

    const denied = await reader.raw.post('/v1/broadcasts', qrBody('By reader'));
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      code: 'INSUFFICIENT_SCOPES',
      required_scopes: ['write:broadcasts'],
      missing_scopes: ['write:broadcasts'],
    });
    for (const [method, path] of [
      ['PATCH', `/v1/broadcasts/${mine.id}`],
      ['DELETE', `/v1/broadcasts/${mine.id}`],
      ['POST', `/v1/broadcasts/${mine.id}/launch`],
      ['POST', `/v1/broadcasts/${mine.id}/cancel`],
    ]) {
      const response = await reader.raw.request(method!, path!, method === 'PATCH' ? { body: { name: 'x' } } : {});
      expect(response.body.error?.code, `${method} ${path}`).toBe('INSUFFICIENT_SCOPES');
    }
    expect((await reader.client.GET('/v1/broadcasts/{id}', { params: { path: { id: mine.id } } })).response.status).toBe(200);
    expect((await reader.client.GET('/v1/broadcasts')).response.status).toBe(200);
    expect((await reader.client.GET('/v1/broadcasts/{id}/recipients', { params: { path: { id: mine.id } } })).response.status).toBe(200);
    expect((await reader.client.POST('/v1/broadcasts/audience/estimate', { body: { audience: { type: 'all' } } })).response.status).toBe(
      200,
    );

    const created = await writer.raw.post('/v1/broadcasts', qrBody('By writer'));
    expect(created.status).toBe(201);
    for (const [method, path] of [
      ['GET', `/v1/broadcasts/${created.body.data.id}`],
      ['GET', '/v1/broadcasts'],
      ['GET', `/v1/broadcasts/${created.body.data.id}/recipients`],
      ['POST', '/v1/broadcasts/audience/estimate'],
    ]) {
      const response = await writer.raw.request(method!, path!, method === 'POST' ? { body: { audience: { type: 'all' } } } : {});
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPES', missing_scopes: ['read:broadcasts'] });
    }
    expect((await writer.raw.patch(`/v1/broadcasts/${created.body.data.id}`, { name: 'Renamed by writer' })).status).toBe(200);
  });
});
