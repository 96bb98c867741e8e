import { beforeAll, describe, expect, it } from 'vitest';
import { distinctEvents } from '../support/distinct-events';
import { orgWithEvents, type EventLog } from '../support/events';
import { eventually } from '../support/messaging';
import { crmAdmin, createTestOrg, type TestOrg } from '../support/orgs';

/**
 * docs/contact-merge.md, "Atomic, concurrent, idempotent": a merge is a sequence of single-document writes, so it
 * never holds the database against other writers, and a merge interrupted after it claimed its contacts is
 * completed by a retry or by the CRM's recovery pass.
 */
describe('contact merges beside other writes, and after a crash', () => {
  let org: TestOrg;
  let events: EventLog;

  beforeAll(async () => {
    ({ org, events } = await orgWithEvents());
    return events.stop;
  });

  const create = async (target: TestOrg, body: Record<string, unknown>) => {
    const response = await target.raw.post('/v1/contacts', body);
    expect(response.status, response.text).toBe(201);
    return response.body.data as { id: string; name: string };
  };
  /** A survivor and a duplicate with a note and a tag: what a merge moves. */
  const pair = async (name: string) => {
    const [survivor, folded] = [await create(org, { name }), await create(org, { name: `${name} 2`, tags: ['dup'] })];
    expect((await org.raw.post(`/v1/contacts/${folded.id}/notes`, { content: `${name}'s note` })).status).toBe(201);
    return { survivor, folded };
  };
  const merge = (survivorId: string, contactIds: string[]) => org.raw.post(`/v1/contacts/${survivorId}/merge`, { contact_ids: contactIds });
  const mergedEvents = (survivorId: string) =>
    distinctEvents(events.received, (e) => e.type === 'contact.merged' && e.data.object.id === survivorId);
  /** What a completed merge of `folded` into `survivor` looks like from outside, with contact.merged raised once. */
  const expectMerged = async (survivorId: string, foldedId: string) => {
    const gone = await org.raw.get(`/v1/contacts/${foldedId}`);
    expect([gone.status, gone.body.error?.details]).toEqual([404, { merged_into: survivorId }]);
    expect((await org.raw.get(`/v1/contacts/${survivorId}`)).body.data).toMatchObject({ notes_count: 1, tags: ['dup'] });
    await events.waitFor((all) => all.some((e) => e.type === 'contact.merged' && e.data.object.id === survivorId));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mergedEvents(survivorId).map((e) => e.data.merged_ids)).toEqual([[foldedId]]);
  };

  it('five merges (each sent twice) beside fifty contact creations of another organization: every write succeeds, each merge happens once', async () => {
    const other = await createTestOrg();
    const pairs = await Promise.all(Array.from({ length: 5 }, (_, n) => pair(`Merged ${n}`)));
    const [merges, creations] = await Promise.all([
      Promise.all(pairs.flatMap(({ survivor, folded }) => [merge(survivor.id, [folded.id]), merge(survivor.id, [folded.id])])),
      Promise.all(Array.from({ length: 50 }, (_, n) => other.raw.post('/v1/contacts', { name: `Beside ${n}` }))),
    ]);
    expect(merges.map((response) => response.status)).toEqual(Array(10).fill(200));
    expect(creations.map((response) => response.status)).toEqual(Array(50).fill(201));
    expect((await other.raw.get('/v1/contacts?limit=100')).body.data).toHaveLength(50);
    for (const { survivor, folded } of pairs) await expectMerged(survivor.id, folded.id);
    // The database still takes writes in both organizations.
    await create(org, { name: 'After' });
    await create(other, { name: 'After' });
  });

  it('a merge interrupted after its claim reads as merged, refuses other merges, and a retry completes it', async () => {
    const { survivor, folded } = await pair('Interrupted');
    const deps = await crmAdmin();
    // Step 1 of the merge, as the CRM wrote it before a crash: the claim, nothing else (dated ahead, so that the
    // recovery pass leaves it to the retry).
    await deps.contacts.merges.claim((await deps.contacts.getById(org.orgId, folded.id))!, survivor.id, new Date(Date.now() + 60_000));
    const claimed = await org.raw.get(`/v1/contacts/${folded.id}`);
    expect([claimed.status, claimed.body.error?.details]).toEqual([404, { merged_into: survivor.id }]);
    expect((await org.raw.patch(`/v1/contacts/${folded.id}`, { name: 'Edited' })).status).toBe(404);
    const rival = await create(org, { name: 'Rival' });
    expect((await merge(rival.id, [folded.id])).body.error).toMatchObject({
      code: 'INVALID_REFERENCE',
      details: { id: folded.id, merged_into: survivor.id },
    });
    expect((await org.raw.get(`/v1/contacts/${survivor.id}`)).body.data.notes_count).toBe(0);

    const retried = await merge(survivor.id, [folded.id]);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.data).toMatchObject({ id: survivor.id, notes_count: 1, tags: ['dup'] });
    await expectMerged(survivor.id, folded.id);
  });

  it('the recovery pass completes a merge whose claim is older than CRM_MERGE_RECOVERY_AFTER_MS', async () => {
    const { survivor, folded } = await pair('Recovered');
    const deps = await crmAdmin();
    await deps.contacts.merges.claim((await deps.contacts.getById(org.orgId, folded.id))!, survivor.id, new Date(Date.now() - 60_000));
    await eventually('the interrupted merge completed', async () =>
      (await org.raw.get(`/v1/contacts/${survivor.id}`)).body.data.notes_count === 1 ? true : undefined,
    );
    await expectMerged(survivor.id, folded.id);
  });
});
