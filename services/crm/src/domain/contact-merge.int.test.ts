import { AppError, createLogger, newId } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { contactRecord, noteRecord } from '../../../../test/support/crm-records';
import { useDatabase } from '../../../../test/support/integration';
import { createDeps } from '../wiring';
import type { CrmDeps } from './deps';
import { completeMerge, mergeRecovery } from './merge-completion';

/** The merge's steps 2–4 on the real server (docs/contact-merge.md): any number of runs complete a claim once. */
describe('completing a contact merge', () => {
  let deps: CrmDeps;
  useDatabase('crm_merges', (storage) => void (deps = createDeps(storage, createLogger('test', 'silent'))));

  const stored = (id: string) => deps.contacts.collection.findOne({ _id: id as never });
  const outboxTypes = async (id: string) => ((await stored(id))?._outbox ?? []).map((entry: { type: string }) => entry.type);
  /** A survivor and a contact claimed into it, as a merge interrupted after step 1 leaves them. */
  const claimedPair = async (orgId: string, claimedAt = new Date()) => {
    const survivor = await deps.contacts.insert(contactRecord(orgId, { name: 'Survivor', tags: ['vip'] }), []);
    const folded = await deps.contacts.insert(contactRecord(orgId, { name: 'Folded', tags: ['dup'], email: 'folded@example.com' }), []);
    await deps.contacts.merges.claim(folded, survivor.id, claimedAt);
    return { survivor, folded };
  };

  it('four concurrent runs and the recovery pass complete an interrupted merge once: one contact.merged, one contact.deleted', async () => {
    const orgId = newId('organization');
    const { survivor, folded } = await claimedPair(orgId, new Date(Date.now() - 60_000));
    const runs = await Promise.all([
      ...Array.from({ length: 4 }, () => completeMerge(deps, orgId, survivor.id, [folded.id])),
      mergeRecovery(deps, 1_000).fireDue(new Date()),
    ]);
    expect(runs.slice(0, 4).map((run) => typeof run === 'object' && run.id)).toEqual(Array(4).fill(survivor.id));
    expect(await deps.contacts.getById(orgId, survivor.id)).toMatchObject({ tags: ['vip', 'dup'], email: 'folded@example.com' });
    expect((await outboxTypes(survivor.id)).filter((type: string) => type === 'contact.merged')).toHaveLength(1);
    expect(await stored(folded.id)).toMatchObject({ merged_into: survivor.id, merging_into: null, deleted_at: expect.any(Date) });
    expect(await outboxTypes(folded.id)).toEqual(['contact.deleted']);
    expect(await deps.contacts.merges.stale(new Date(), 10)).toEqual([]);
  });

  it('answers the survivor with the moved records counted, wherever a concurrent run completes the merge between its reads', async () => {
    // The same merge requested at once: one run may find the merge done by another between two of its own reads.
    for (let completedAfterRead = 1; completedAfterRead <= 3; completedAfterRead++) {
      const orgId = newId('organization');
      const { survivor, folded } = await claimedPair(orgId);
      await deps.notes.insert(noteRecord(orgId, { contact_id: folded.id }), []);
      let reads = 0;
      const getAny: CrmDeps['contacts']['getAny'] = async (...args) => {
        const found = await deps.contacts.getAny(...args);
        if (++reads === completedAfterRead) await completeMerge(deps, orgId, survivor.id, [folded.id]);
        return found;
      };
      const racing = { ...deps, contacts: { ...deps.contacts, getAny } } as CrmDeps;
      const answer = await completeMerge(racing, orgId, survivor.id, [folded.id]);
      expect([completedAfterRead, answer.notes_count]).toEqual([completedAfterRead, 1]);
    }
  });

  it('releases the claims when the survivor was deleted meanwhile: the folded contact is as it was', async () => {
    const orgId = newId('organization');
    const { survivor, folded } = await claimedPair(orgId);
    await deps.contacts.updateAtRevision(orgId, survivor.id, survivor.rev, { deleted_at: new Date() }, []);
    await expect(completeMerge(deps, orgId, survivor.id, [folded.id])).rejects.toSatisfy(
      (error) => error instanceof AppError && error.code === 'NOT_FOUND',
    );
    expect(await deps.contacts.getById(orgId, folded.id)).toMatchObject({ merging_into: null, deleted_at: null, tags: ['dup'] });
  });

  it('follows a survivor merged in turn into another contact: the claimed contact lands there', async () => {
    const orgId = newId('organization');
    const { survivor, folded } = await claimedPair(orgId);
    const last = await deps.contacts.insert(contactRecord(orgId, { name: 'Last' }), []);
    await deps.contacts.merges.claim((await deps.contacts.getById(orgId, survivor.id))!, last.id, new Date());
    await completeMerge(deps, orgId, last.id, [survivor.id]);
    expect((await completeMerge(deps, orgId, survivor.id, [folded.id])).id).toBe(last.id);
    expect(await stored(folded.id)).toMatchObject({ merged_into: last.id, deleted_at: expect.any(Date) });
    expect(await deps.contacts.getById(orgId, last.id)).toMatchObject({ tags: ['vip', 'dup'], absorbed_ids: [survivor.id, folded.id] });
  });
});
