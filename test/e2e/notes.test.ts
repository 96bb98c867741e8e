import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAll } from '@crm/client';
import { rawListAll } from '../support/api';
import { eventsOf, type EventLog } from '../support/events';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { deleteRawDeal, insertRawDeal } from '../support/raw-records';

const ABSENT_NOTE = 'nt_0000000000000000000000';

/** Contact notes (#9–#12) and deal notes (#25–#28) share one contract; each parent kind runs the same stories. */
const PARENTS = [
  { kind: 'contact', event: 'contact.note.added', idField: 'contact_id', readScope: 'read:contacts', writeScope: 'write:contacts' },
  { kind: 'deal', event: 'deal.note.added', idField: 'deal_id', readScope: 'read:deals', writeScope: 'write:deals' },
] as const;

async function newParent(org: TestOrg, kind: 'contact' | 'deal'): Promise<string> {
  if (kind === 'deal') return insertRawDeal(org.orgId, { title: 'Noted deal' });
  const response = await org.client.POST('/v1/contacts', { body: { name: 'Noted contact' } });
  expect(response.response.status).toBe(201);
  return response.data!.data.id;
}

for (const parent of PARENTS) {
  describe(`${parent.kind} notes`, () => {
    let org: TestOrg;
    let other: TestOrg;
    let events: EventLog;
    const base = (id: string) => `/v1/${parent.kind}s/${id}/notes`;

    beforeAll(async () => {
      [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
      events = await eventsOf(org.orgId);
    });
    afterAll(async () => {
      await events.stop();
    });

    it(`creates a note with the defaults (201) and emits ${parent.event}`, async () => {
      const id = await newParent(org, parent.kind);
      const response = await org.raw.post(base(id), { content: '  Called, wants a demo  ' });
      expect(response.status).toBe(201);
      const note = response.body.data;
      expect(note).toEqual({
        id: expect.stringMatching(/^nt_/),
        content: 'Called, wants a demo',
        color: 'yellow',
        category: 'general',
        created_at: expect.any(String),
        updated_at: note.created_at,
      });

      const explicit = await org.raw.post(base(id), { content: 'Budget approved', color: 'green', category: 'success' });
      expect(explicit.body.data).toMatchObject({ color: 'green', category: 'success' });

      await events.waitFor((received) => received.some((e) => e.type === parent.event && e.data.note.id === note.id));
      const event = events.ofType(parent.event).find((e) => e.data.note.id === note.id);
      expect(event?.data).toEqual({ note, [parent.idField]: id });
    });

    it('lists the notes newest first with meta.total counting the parent only', async () => {
      const id = await newParent(org, parent.kind);
      const otherParent = await newParent(org, parent.kind);
      for (const content of ['first', 'second', 'third']) expect((await org.raw.post(base(id), { content })).status).toBe(201);
      await org.raw.post(base(otherParent), { content: 'elsewhere' });

      const page = await org.raw.get(`${base(id)}?limit=2`);
      expect(page.status).toBe(200);
      expect(page.body.data.map((n: { content: string }) => n.content)).toEqual(['third', 'second']);
      expect(page.body.meta).toMatchObject({ total: 3, has_more: true });
      const all = await rawListAll(org.raw, base(id), 2);
      expect(all.map((n) => n.content)).toEqual(['third', 'second', 'first']);
    });

    it('updates content, color and category; no event for edits', async () => {
      const id = await newParent(org, parent.kind);
      const note = (await org.raw.post(base(id), { content: 'draft' })).body.data;
      const patched = await org.raw.patch(`${base(id)}/${note.id}`, { color: 'red', category: 'objection' });
      expect(patched.status).toBe(200);
      expect(patched.body.data).toMatchObject({ id: note.id, content: 'draft', color: 'red', category: 'objection' });
      const content = await org.raw.patch(`${base(id)}/${note.id}`, { content: 'final' });
      expect(content.body.data).toMatchObject({ content: 'final', color: 'red' });
      expect((await rawListAll(org.raw, base(id)))[0]).toEqual(content.body.data);
    });

    it('refuses bad bodies and ids with the catalogue codes', async () => {
      const id = await newParent(org, parent.kind);
      const note = (await org.raw.post(base(id), { content: 'keep' })).body.data;
      const cases: Array<[unknown, number, string]> = [
        [{}, 422, 'VALIDATION_ERROR'],
        [{ content: '' }, 422, 'VALIDATION_ERROR'],
        [{ content: 'x'.repeat(10_001) }, 422, 'VALIDATION_ERROR'],
        [{ content: 12 }, 422, 'VALIDATION_ERROR'],
        [{ content: 'x', color: 'black' }, 422, 'VALIDATION_ERROR'],
        [{ content: 'x', category: 'misc' }, 422, 'VALIDATION_ERROR'],
        [{ content: 'x', pinned: true }, 422, 'UNKNOWN_FIELDS'],
      ];
      for (const [body, status, code] of cases) {
        const response = await org.raw.post(base(id), body);
        expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(status);
        expect(response.body.error.code).toBe(code);
      }
      expect((await org.raw.post(base(id), { content: 'x', pinned: true })).body.error.details).toEqual({ fields: ['pinned'] });
      expect((await org.raw.post(base(id), { content: 'x'.repeat(10_000) })).status).toBe(201);
      expect((await org.raw.patch(`${base(id)}/${note.id}`, { color: 'black' })).body.error.code).toBe('VALIDATION_ERROR');
      expect((await org.raw.patch(`${base(id)}/${note.id}`, { created_at: 'x' })).body.error.code).toBe('UNKNOWN_FIELDS');

      const prefix = parent.kind === 'contact' ? 'ct' : 'dl';
      expect((await org.raw.get(`/v1/${parent.kind}s/${prefix}_bad/notes`)).body.error.code).toBe('INVALID_ID');
      expect((await org.raw.get(`/v1/${parent.kind}s/${note.id}/notes`)).body.error.code).toBe('INVALID_ID');
      expect((await org.raw.patch(`${base(id)}/nt_bad`, { content: 'x' })).body.error.code).toBe('INVALID_ID');
      expect((await org.raw.delete(`${base(id)}/${id}`)).body.error.code).toBe('INVALID_ID');
      expect((await org.raw.get(`/v1/${parent.kind}s/${prefix}_0000000000000000000000/notes`)).status).toBe(404);
      expect((await org.raw.patch(`${base(id)}/${ABSENT_NOTE}`, { content: 'x' })).status).toBe(404);
      expect((await org.raw.delete(`${base(id)}/${ABSENT_NOTE}`)).status).toBe(404);
    });

    it('finds a note only through its own parent and organization', async () => {
      const id = await newParent(org, parent.kind);
      const sibling = await newParent(org, parent.kind);
      const note = (await org.raw.post(base(id), { content: 'private' })).body.data;

      for (const response of [
        await org.raw.patch(`${base(sibling)}/${note.id}`, { content: 'hijack' }),
        await org.raw.delete(`${base(sibling)}/${note.id}`),
        await other.raw.get(base(id)),
        await other.raw.post(base(id), { content: 'intrusion' }),
        await other.raw.patch(`${base(id)}/${note.id}`, { content: 'hijack' }),
        await other.raw.delete(`${base(id)}/${note.id}`),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('NOT_FOUND');
      }
      const notes = await rawListAll(org.raw, base(id));
      expect(notes).toEqual([note]);
    });

    it('deletes a note (204) and the notes of a deleted parent are NOT_FOUND', async () => {
      const id = await newParent(org, parent.kind);
      const note = (await org.raw.post(base(id), { content: 'to remove' })).body.data;
      const deleted = await org.raw.delete(`${base(id)}/${note.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect((await org.raw.delete(`${base(id)}/${note.id}`)).status).toBe(404);
      expect((await org.raw.get(base(id))).body.meta.total).toBe(0);

      await org.raw.post(base(id), { content: 'orphan' });
      if (parent.kind === 'contact')
        expect((await org.client.DELETE('/v1/contacts/{id}', { params: { path: { id: id } } })).response.status).toBe(204);
      else await deleteRawDeal(id);
      expect((await org.raw.get(base(id))).status).toBe(404);
      expect((await org.raw.post(base(id), { content: 'late' })).status).toBe(404);
    });

    it(`needs ${parent.readScope} to list and ${parent.writeScope} to write`, async () => {
      const id = await newParent(org, parent.kind);
      const reader = await org.keyWith([parent.readScope]);
      const writer = await org.keyWith([parent.writeScope]);
      expect((await reader.raw.get(base(id))).status).toBe(200);
      expect((await writer.raw.post(base(id), { content: 'ok' })).status).toBe(201);
      for (const response of [await reader.raw.post(base(id), { content: 'no' }), await writer.raw.get(base(id))]) {
        expect(response.status).toBe(403);
        expect(response.body.error.code).toBe('INSUFFICIENT_SCOPES');
      }
    });
  });
}

describe('notes_count of a contact', () => {
  it('reflects 20 concurrent creates and the deletes, and never counts deal notes or other organizations', async () => {
    const [org, other] = await Promise.all([createTestOrg(), createTestOrg()]);
    const contact = (await org.client.POST('/v1/contacts', { body: { name: 'Busy contact' } })).data!.data;
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => org.raw.post(`/v1/contacts/${contact.id}/notes`, { content: `note ${i}` })),
    );
    expect(created.map((response) => response.status)).toEqual(Array(20).fill(201));
    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contact.id } } })).data!.data.notes_count).toBe(20);

    await Promise.all(created.slice(0, 5).map((response) => org.raw.delete(`/v1/contacts/${contact.id}/notes/${response.body.data.id}`)));
    const deal = await insertRawDeal(org.orgId, { contact_ids: [contact.id] });
    await org.client.POST('/v1/deals/{id}/notes', { params: { path: { id: deal } }, body: { content: 'on the deal' } });
    await other.client.POST('/v1/contacts/{id}/notes', { params: { path: { id: contact.id } }, body: { content: 'foreign' } });

    expect((await org.client.GET('/v1/contacts/{id}', { params: { path: { id: contact.id } } })).data!.data.notes_count).toBe(15);
    const listed = (await listAll(org.client, '/v1/contacts')).find((row) => row.id === contact.id);
    expect(listed?.notes_count).toBe(15);
    expect((await org.client.GET('/v1/contacts/{id}/notes', { params: { path: { id: contact.id } } })).data!.meta.total).toBe(15);
  });
});
