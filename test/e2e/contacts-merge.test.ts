import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { distinctEvents } from '../support/distinct-events';
import { orgWithEvents, type EventLog } from '../support/events';
import { addNumber, eventually, inbound, uniquePhone, type TestNumber } from '../support/messaging';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { createDeal, createFunnel } from '../support/pipelines';

/** POST /v1/contacts/{id}/merge (docs/contact-merge.md): what moves, what the folded contacts become, every refusal. */
describe('merging contacts', () => {
  let org: TestOrg;
  let events: EventLog;
  let number: TestNumber;

  beforeAll(async () => {
    ({ org, events } = await orgWithEvents());
    number = await addNumber(org.orgId, 'qrcode', { name: 'Merge QR' });
    await createFunnel(org.client, { name: 'Sales', is_default: true });
    return events.stop;
  });

  const create = async (body: Record<string, unknown>) => {
    const response = await org.raw.post('/v1/contacts', body);
    expect(response.status, response.text).toBe(201);
    return response.body.data as { id: string; name: string };
  };
  const merge = (id: string, contactIds: string[], headers: Record<string, string> = {}) =>
    org.raw.post(`/v1/contacts/${id}/merge`, { contact_ids: contactIds }, { headers });
  /** A contact that wrote to the QR number: it has a chatapp identity and a conversation. */
  const writer = async (name: string) => {
    const phone = uniquePhone();
    await inbound(number, { from: phone, name, text: `hi, ${name} here` });
    const contact = await eventually(
      `${name}'s contact`,
      async () => (await org.raw.get(`/v1/contacts?search=${encodeURIComponent(phone)}`)).body.data[0],
    );
    return { ...(contact as { id: string; chatapp_jid: string }), phone };
  };
  /** contact.merged events into a contact, one per event id (publishing is at-least-once). */
  const mergedInto = (survivorId: string) =>
    distinctEvents(events.received, (e) => e.type === 'contact.merged' && e.data.object.id === survivorId);
  const conversationsOf = async (contactId: string) => (await org.raw.get(`/v1/conversations?contact_id=${contactId}`)).body.data as any[];

  it('moves notes, tasks, deals, tags, missing fields and conversations to the survivor; the folded contact reads 404', async () => {
    const survivor = await writer('Ana');
    const folded = await writer('Ana Duplicate');
    await org.raw.patch(`/v1/contacts/${survivor.id}`, { tags: ['vip'], custom_fields: {} });
    await org.raw.patch(`/v1/contacts/${folded.id}`, { email: 'ana.dup@example.com', tags: ['imported'] });
    const note = (await org.raw.post(`/v1/contacts/${folded.id}/notes`, { content: 'Met at the fair' })).body.data;
    const task = (await org.raw.post('/v1/tasks', { title: 'Call Ana', contact_id: folded.id })).body.data;
    const deal = await createDeal(org.client, { title: 'Both of them', contact_ids: [survivor.id, folded.id] });
    const foldedDeal = await createDeal(org.client, { title: 'Only the duplicate', contact_ids: [folded.id] });

    const merged = await merge(survivor.id, [folded.id]);
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.data).toMatchObject({
      id: survivor.id,
      name: 'Ana',
      email: 'ana.dup@example.com',
      chatapp_jid: survivor.chatapp_jid,
      tags: ['vip', 'imported'],
      notes_count: 1,
      deals_count: 2,
    });
    const gone = await org.raw.get(`/v1/contacts/${folded.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'NOT_FOUND', details: { merged_into: survivor.id } });
    expect((await org.raw.get(`/v1/contacts/${survivor.id}/notes`)).body.data.map((n: any) => n.id)).toEqual([note.id]);
    expect((await org.raw.get(`/v1/tasks/${task.id}`)).body.data.contact).toEqual({ id: survivor.id, name: 'Ana' });
    expect((await org.raw.get(`/v1/deals/${deal.id}`)).body.data.contacts).toEqual([{ id: survivor.id, name: 'Ana' }]);
    expect((await org.raw.get(`/v1/deals/${foldedDeal.id}`)).body.data.contacts).toEqual([{ id: survivor.id, name: 'Ana' }]);
    // The e-mail is the survivor's now: another contact cannot take it, the folded one's identity is not left dangling.
    expect((await org.raw.post('/v1/contacts', { name: 'X', email: 'ana.dup@example.com' })).body.error.details).toMatchObject({
      existing_id: survivor.id,
    });

    // Messaging applies contact.merged: both conversations on this number become one, with both messages.
    const [conversation] = await eventually('the conversations joined', async () => {
      const [mine, theirs] = [await conversationsOf(survivor.id), await conversationsOf(folded.id)];
      return mine.length === 1 && theirs.length === 0 ? mine : undefined;
    });
    expect((await org.raw.get(`/v1/conversations/${conversation.id}/messages`)).body.meta.total).toBe(2);
    // The folded contact's number keeps reaching the survivor: its next message lands in the same conversation.
    await inbound(number, { from: folded.phone, text: 'me again' });
    await eventually('the folded identity routed to the survivor', async () => {
      const messages = (await org.raw.get(`/v1/conversations/${conversation.id}/messages`)).body.data as any[];
      return messages.some((message) => message.content === 'me again' && message.contact_id === survivor.id) || undefined;
    });

    const [event] = await events.waitFor((all) => all.some((e) => e.type === 'contact.merged' && e.data.object.id === survivor.id));
    const mergedEvents = mergedInto(survivor.id);
    expect(mergedEvents).toHaveLength(1);
    expect(mergedEvents[0]!.data).toMatchObject({
      merged_ids: [folded.id],
      object: { notes_count: 1, deals_count: 2, tags: ['vip', 'imported'] },
    });
    expect(event).toBeDefined();
    await events.waitFor((all) => all.some((e) => e.type === 'contact.deleted' && e.data.object.id === folded.id));
    await events.waitFor((all) =>
      all.some((e) => e.type === 'contact.tag.added' && e.data.contact.id === survivor.id && e.data.tag === 'imported'),
    );
  });

  it('is idempotent: a replayed Idempotency-Key answers the same, a repeat merges nothing and raises nothing', async () => {
    const survivor = await create({ name: 'Bea' });
    const folded = await create({ name: 'Bea 2', tags: ['x'] });
    const key = randomUUID();
    const first = await merge(survivor.id, [folded.id], { 'idempotency-key': key });
    const replay = await merge(survivor.id, [folded.id], { 'idempotency-key': key });
    expect(first.status, first.text).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
    const again = await merge(survivor.id, [folded.id]);
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.tags).toEqual(['x']);
    await events.waitFor((all) => all.some((e) => e.type === 'contact.merged' && e.data.object.id === survivor.id));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mergedInto(survivor.id)).toHaveLength(1);
  });

  it('concurrent merges never half-move: the same merge five times raises one event; two survivors for one contact: one wins', async () => {
    const survivor = await create({ name: 'Cid' });
    const folded = await create({ name: 'Cid 2' });
    await org.raw.post(`/v1/contacts/${folded.id}/notes`, { content: 'one note' });
    const same = await Promise.all(Array.from({ length: 5 }, () => merge(survivor.id, [folded.id])));
    expect(same.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(same.every((response) => response.body.data.notes_count === 1)).toBe(true);
    await events.waitFor((all) => all.some((e) => e.type === 'contact.merged' && e.data.object.id === survivor.id));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mergedInto(survivor.id)).toHaveLength(1);

    const [left, right, contested] = [await create({ name: 'Left' }), await create({ name: 'Right' }), await create({ name: 'Contested' })];
    await org.raw.post(`/v1/contacts/${contested.id}/notes`, { content: 'whose note?' });
    const answers = await Promise.all([merge(left.id, [contested.id]), merge(right.id, [contested.id])]);
    const statuses = answers.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 422]);
    const winner = answers.find((response) => response.status === 200)!.body.data;
    const loser = answers.find((response) => response.status === 422)!.body.error;
    expect(loser).toMatchObject({ code: 'INVALID_REFERENCE', details: { field: 'contact_ids', id: contested.id, merged_into: winner.id } });
    expect(winner.notes_count).toBe(1);
    const other = winner.id === left.id ? right : left;
    expect((await org.raw.get(`/v1/contacts/${other.id}`)).body.data.notes_count).toBe(0);

    // Each into the other at once: one merge happens, the other finds its contact gone; one contact remains.
    const [x, y] = [await create({ name: 'X' }), await create({ name: 'Y' })];
    const crossed = await Promise.all([merge(x.id, [y.id]), merge(y.id, [x.id])]);
    expect(crossed.map((response) => response.status).sort()).toEqual([200, 404]);
    const live = await Promise.all([x, y].map(async (contact) => (await org.raw.get(`/v1/contacts/${contact.id}`)).status));
    expect(live.sort()).toEqual([200, 404]);
  });

  it('refuses what it cannot merge with the catalogue codes', async () => {
    const contact = await create({ name: 'Dee' });
    const outsider = await createTestOrg();
    const theirs = (await outsider.raw.post('/v1/contacts', { name: 'Not yours' })).body.data;
    const cases: Array<[string, Promise<{ status: number; body: any }>, number, string]> = [
      ['a malformed path id', org.raw.post('/v1/contacts/nope/merge', { contact_ids: [contact.id] }), 400, 'INVALID_ID'],
      ['a malformed body id', merge(contact.id, ['ct_bad']), 400, 'INVALID_ID'],
      ['an unknown survivor', merge('ct_0000000000000000000000', [contact.id]), 404, 'NOT_FOUND'],
      ['merging into itself', merge(contact.id, [contact.id]), 422, 'VALIDATION_ERROR'],
      ["another organization's contact", merge(contact.id, [theirs.id]), 422, 'INVALID_REFERENCE'],
      ['an unknown contact', merge(contact.id, ['ct_1111111111111111111111']), 422, 'INVALID_REFERENCE'],
      ['no contact', merge(contact.id, []), 422, 'VALIDATION_ERROR'],
      [
        'an unknown field',
        org.raw.post(`/v1/contacts/${contact.id}/merge`, { contact_ids: [theirs.id], keep: 'x' }),
        422,
        'UNKNOWN_FIELDS',
      ],
      [
        'the survivor from another organization',
        outsider.raw.post(`/v1/contacts/${contact.id}/merge`, { contact_ids: [theirs.id] }),
        404,
        'NOT_FOUND',
      ],
    ];
    for (const [what, call, status, code] of cases) {
      const response = await call;
      expect([what, response.status, response.body?.error?.code]).toEqual([what, status, code]);
    }
    const readOnly = await org.keyWith(['read:contacts']);
    expect((await readOnly.raw.post(`/v1/contacts/${contact.id}/merge`, { contact_ids: [theirs.id] })).body.error.code).toBe(
      'INSUFFICIENT_SCOPES',
    );
    // Nothing was changed by any refusal.
    expect((await outsider.raw.get(`/v1/contacts/${theirs.id}`)).status).toBe(200);
    expect((await org.raw.get(`/v1/contacts/${contact.id}`)).body.data.notes_count).toBe(0);
  });
});
