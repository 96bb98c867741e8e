import { createLogger, newId } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { contactRecord, funnelRecord, noteRecord } from '../../../../test/support/crm-records';
import { useDatabase } from '../../../../test/support/integration';
import { countAll } from '../repository/contact-counts.repository';
import { createDeps } from '../wiring';
import { viewContacts } from './contact.view';
import { mergeContacts } from './contact-merge';
import { createDeal, deleteDeal, updateDeal } from './deals';
import type { CrmDeps } from './deps';
import { createNote, deleteNote } from './notes';

/**
 * notes_count and deals_count stored on each contact (docs/performance.md): every write that links or unlinks a
 * contact moves them in its own transaction, on the real server, and they always equal the linked records' count.
 */
describe('the note and deal counts stored on contacts', () => {
  let deps: CrmDeps;
  let storage: Parameters<typeof createDeps>[0];
  useDatabase('crm_counts', (opened) => void (deps = createDeps((storage = opened), createLogger('test', 'silent'))));

  const stored = async (id: string) => {
    const doc = await deps.contacts.collection.findOne({ _id: id as never });
    return { notes_count: doc?.notes_count as number | undefined, deals_count: doc?.deals_count as number | undefined };
  };
  /** What the linked records say, counted by the query the list used before the counts were stored. */
  const truth = async (orgId: string, id: string) => {
    const { notes, deals } = await deps.links.countsByContact(orgId, [id]);
    return { notes_count: notes.get(id) ?? 0, deals_count: deals.get(id) ?? 0 };
  };
  const newContact = (orgId: string, name = 'Ada') => deps.contacts.insert(contactRecord(orgId, { name }), []);
  const newFunnel = async (orgId: string) => {
    const at = new Date();
    const stage = { id: newId('stage'), name: 'New', color: null, probability: null, created_at: at, updated_at: at };
    return deps.funnels.insert(funnelRecord(orgId, { stages: [stage] }));
  };
  const note = (orgId: string, contactId: string) => createNote(deps, orgId, { kind: 'contact', id: contactId }, { content: 'Called' });

  it('a new contact holds zero counts, and notes added to and deleted from it move notes_count', async () => {
    const orgId = newId('organization');
    const contact = await newContact(orgId);
    expect(await stored(contact.id)).toEqual({ notes_count: 0, deals_count: 0 });
    const first = await note(orgId, contact.id);
    await note(orgId, contact.id);
    await deleteNote(deps, orgId, { kind: 'contact', id: contact.id }, first.id);
    // A second delete of the same note finds nothing and changes no count.
    await expect(deleteNote(deps, orgId, { kind: 'contact', id: contact.id }, first.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await stored(contact.id)).toEqual({ notes_count: 1, deals_count: 0 });
    expect(await stored(contact.id)).toEqual(await truth(orgId, contact.id));
  });

  it('deals created, re-linked and deleted move deals_count of exactly the contacts they link and unlink', async () => {
    const orgId = newId('organization');
    const [a, b, c] = await Promise.all([newContact(orgId, 'A'), newContact(orgId, 'B'), newContact(orgId, 'C')]);
    const funnel = await newFunnel(orgId);
    const deal = await createDeal(deps, orgId, { title: 'Big', funnel_id: funnel.id, contact_ids: [a!.id, b!.id] });
    const other = await createDeal(deps, orgId, { title: 'Small', funnel_id: funnel.id, contact_ids: [a!.id] });
    expect([await stored(a!.id), await stored(b!.id), await stored(c!.id)].map((counts) => counts.deals_count)).toEqual([2, 1, 0]);

    await updateDeal(deps, orgId, deal.id, { contact_ids: [b!.id, c!.id] });
    expect([await stored(a!.id), await stored(b!.id), await stored(c!.id)].map((counts) => counts.deals_count)).toEqual([1, 1, 1]);
    // A change that keeps the contacts leaves the counts.
    await updateDeal(deps, orgId, deal.id, { title: 'Bigger', contact_ids: [c!.id, b!.id] });
    await deleteDeal(deps, orgId, other.id);
    await deleteDeal(deps, orgId, deal.id);
    for (const contact of [a!, b!, c!]) {
      expect(await stored(contact.id)).toEqual({ notes_count: 0, deals_count: 0 });
      expect(await stored(contact.id)).toEqual(await truth(orgId, contact.id));
    }
  });

  it('a merge leaves the survivor counting its own and the folded contacts’ notes, and a deal they shared once', async () => {
    const orgId = newId('organization');
    const [survivor, folded] = await Promise.all([newContact(orgId, 'Survivor'), newContact(orgId, 'Folded')]);
    const funnel = await newFunnel(orgId);
    await createDeal(deps, orgId, { title: 'Shared', funnel_id: funnel.id, contact_ids: [survivor!.id, folded!.id] });
    await createDeal(deps, orgId, { title: 'Theirs', funnel_id: funnel.id, contact_ids: [folded!.id] });
    await Promise.all([note(orgId, survivor!.id), note(orgId, folded!.id), note(orgId, folded!.id)]);

    const view = await mergeContacts(deps, orgId, survivor!.id, { contact_ids: [folded!.id] });
    expect(view).toMatchObject({ notes_count: 3, deals_count: 2 });
    expect(await stored(survivor!.id)).toEqual({ notes_count: 3, deals_count: 2 });
    expect(await stored(survivor!.id)).toEqual(await truth(orgId, survivor!.id));
    const merged = await deps.contacts.collection.findOne({ _id: survivor!.id as never });
    expect(merged?._outbox.find((entry: { type: string }) => entry.type === 'contact.merged')?.data.object).toMatchObject({
      notes_count: 3,
      deals_count: 2,
    });
  });

  it('concurrent notes and deals on one contact, with a merge into it among them, leave exact counts', async () => {
    const orgId = newId('organization');
    const [survivor, folded] = await Promise.all([newContact(orgId, 'Survivor'), newContact(orgId, 'Folded')]);
    const funnel = await newFunnel(orgId);
    await Promise.all([note(orgId, folded!.id), note(orgId, folded!.id)]);
    const writes = [
      ...Array.from({ length: 12 }, () => note(orgId, survivor!.id)),
      ...Array.from({ length: 6 }, (_, i) =>
        createDeal(deps, orgId, { title: `D${i}`, funnel_id: funnel.id, contact_ids: [survivor!.id] }),
      ),
      mergeContacts(deps, orgId, survivor!.id, { contact_ids: [folded!.id] }),
    ];
    await Promise.all(writes);
    expect(await stored(survivor!.id)).toEqual({ notes_count: 14, deals_count: 6 });
    expect(await stored(survivor!.id)).toEqual(await truth(orgId, survivor!.id));
  });

  it('a contact stored before the counts reads its real counts, keeps none until the start-up pass stores them', async () => {
    const orgId = newId('organization');
    const { id, ...fields } = contactRecord(orgId, { name: 'Old' });
    const old = { id };
    // As a contact written by the previous version is stored: no counts.
    await deps.contacts.collection.insertOne({ ...fields, _id: id, name_key: 'old', rev: 1 } as never);
    await deps.notes.insert(noteRecord(orgId, { contact_id: old.id }), []);
    await note(orgId, old.id);
    const funnel = await newFunnel(orgId);
    await createDeal(deps, orgId, { title: 'Old deal', funnel_id: funnel.id, contact_ids: [old.id] });
    expect(await stored(old.id)).toEqual({ notes_count: undefined, deals_count: undefined });
    const [view] = await viewContacts(deps, orgId, [(await deps.contacts.getById(orgId, old.id))!]);
    expect(view).toMatchObject({ notes_count: 2, deals_count: 1 });

    // The pass, with notes written to the contact while it runs: none is missed.
    const [counted] = await Promise.all([
      countAll(storage, deps.contacts, deps.links),
      ...Array.from({ length: 8 }, () => note(orgId, old.id)),
    ]);
    expect(counted).toBeGreaterThanOrEqual(1);
    expect(await stored(old.id)).toEqual(await truth(orgId, old.id));
    expect(await stored(old.id)).toEqual({ notes_count: 10, deals_count: 1 });
    // A second pass finds nothing left to count; later writes move the stored counts.
    expect(await countAll(storage, deps.contacts, deps.links)).toBe(0);
    await note(orgId, old.id);
    expect((await stored(old.id)).notes_count).toBe(11);
  });

  it('the start-up pass counts every contact stored before, page after page, across organizations', async () => {
    const orgs = [newId('organization'), newId('organization')];
    const olds = Array.from({ length: 230 }, (_, i) => contactRecord(orgs[i % 2]!, { name: `Old ${i}` }));
    await deps.contacts.collection.insertMany(olds.map(({ id, ...fields }) => ({ ...fields, _id: id, name_key: 'old', rev: 1 }) as never));
    const noted = [olds[0]!, olds[101]!, olds[229]!];
    for (const contact of noted) await deps.notes.insert(noteRecord(contact.org_id, { contact_id: contact.id }), []);

    expect(await countAll(storage, deps.contacts, deps.links)).toBe(230);
    expect(await deps.contacts.collection.countDocuments({ notes_count: { $exists: false } })).toBe(0);
    for (const contact of noted) expect(await stored(contact.id)).toEqual({ notes_count: 1, deals_count: 0 });
    expect(await stored(olds[100]!.id)).toEqual({ notes_count: 0, deals_count: 0 });
  });
});
