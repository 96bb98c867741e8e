import { createLogger, newId } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { companyRecord, contactRecord, dealRecord, funnelRecord, noteRecord, taskRecord } from '../../../../test/support/crm-records';
import { testEvent, useDatabase } from '../../../../test/support/integration';
import type { CrmDeps } from '../domain/deps';
import { createDeps } from '../wiring';

describe('company, note, task and link repositories', () => {
  let deps: CrmDeps;
  useDatabase('crm_companies', (storage) => void (deps = createDeps(storage, createLogger('test', 'silent'))));

  it('filters companies by sector (case-insensitive) and size, and counts their live contacts and deals', async () => {
    const orgId = newId('organization');
    const acme = await deps.companies.insert(companyRecord(orgId, { name: 'Acme', sector: 'Retail', size: '11-50' }), []);
    await deps.companies.insert(companyRecord(orgId, { name: 'Globex', sector: 'Energy' }), []);
    const list = await deps.companies.list(orgId, { limit: 10, after: undefined, sector: 'retail', size: '11-50' });
    expect(list.items.map((company) => company.name)).toEqual(['Acme']);
    await deps.contacts.insert(contactRecord(orgId, { company_id: acme.id }), []);
    await deps.deals.insert(dealRecord(orgId, { company_id: acme.id, value: 40 }), []);
    await deps.deals.insert(dealRecord(orgId, { company_id: acme.id, value: 2, status: 'lost' }), []);
    expect((await deps.companyLinks.countsOf(orgId, [acme.id])).get(acme.id)).toEqual({
      contacts_count: 1,
      deals_count: 2,
      total_deals_value: 42,
    });
    expect(await deps.links.companyExists(orgId, acme.id)).toBe(true);
    expect(await deps.links.companyExists(newId('organization'), acme.id)).toBe(false);
  });

  it('reaches a note only through its own parent, and pages notes newest first', async () => {
    const orgId = newId('organization');
    const [contactId, otherId] = [newId('contact'), newId('contact')];
    const older = await deps.notes.insert(noteRecord(orgId, { contact_id: contactId }, { created_at: new Date(1_000), content: 'older' }), [
      testEvent(orgId),
    ]);
    await deps.notes.insert(noteRecord(orgId, { contact_id: contactId }, { created_at: new Date(2_000), content: 'newer' }), []);
    expect(await deps.notes.getById(orgId, { kind: 'contact', id: otherId }, older.id)).toBeNull();
    expect(await deps.notes.update(orgId, { kind: 'contact', id: otherId }, older.id, { content: 'x' })).toBeNull();
    const page = await deps.notes.list(orgId, { kind: 'contact', id: contactId }, { limit: 1, after: undefined });
    expect(page.items.map((note) => note.content)).toEqual(['newer']);
    expect((await deps.notes.list(orgId, { kind: 'contact', id: contactId }, { limit: 1, after: page.next })).items[0]?.content).toBe(
      'older',
    );
    expect(await deps.links.countsByContact(orgId, [contactId, otherId])).toEqual({ notes: new Map([[contactId, 2]]), deals: new Map() });
  });

  it('reads a contact with its newest 10 live deals in one command, within its organization', async () => {
    const orgId = newId('organization');
    const contact = await deps.contacts.insert(contactRecord(orgId), []);
    const other = await deps.contacts.insert(contactRecord(orgId), []);
    await deps.notes.insert(noteRecord(orgId, { contact_id: contact.id }), []);
    await deps.notes.insert(noteRecord(orgId, { contact_id: contact.id }, { deleted_at: new Date() }), []);
    await deps.notes.insert(noteRecord(newId('organization'), { contact_id: contact.id }), []);
    const stage = { id: 'st_1', name: 'New', color: null, probability: null, created_at: new Date(), updated_at: new Date() };
    await deps.funnels.insert(funnelRecord(orgId, { id: 'fn_1', stages: [stage] }));
    const titles = Array.from({ length: 12 }, (_, i) => `Deal ${String(i).padStart(2, '0')}`);
    for (const [i, title] of titles.entries())
      await deps.deals.insert(dealRecord(orgId, { title, contact_ids: [other.id, contact.id], created_at: new Date(1_000 + i) }), []);
    await deps.deals.insert(dealRecord(orgId, { contact_ids: [contact.id], deleted_at: new Date() }), []);

    const branches = deps.links.detailBranches(orgId, contact.id, 10);
    const { record, linked } = await deps.contacts.getByIdWith(orgId, contact.id, branches);
    expect(record).toEqual(await deps.contacts.getById(orgId, contact.id));
    const detail = await deps.links.detailOf(orgId, linked);
    expect(detail.deals.map((deal) => deal.title)).toEqual(titles.slice(2).reverse());
    expect(detail.deals[0]).toMatchObject({ value: 100, status: 'open', stage: { id: 'st_1', name: 'New' } });
    // The same detail for a record in hand, and nothing of the contact from another organization.
    expect(await deps.links.contactDetail(orgId, contact.id, 10)).toEqual(detail);
    expect((await deps.contacts.getByIdWith(newId('organization'), contact.id, branches)).record).toBeNull();
    const none = await deps.contacts.getByIdWith(orgId, newId('contact'), deps.links.detailBranches(orgId, newId('contact'), 10));
    expect(none).toEqual({ record: null, linked: [] });
  });

  it('sorts tasks by due date with undated ones last, and completes a task once of two concurrent tries', async () => {
    const orgId = newId('organization');
    await deps.tasks.insert(taskRecord(orgId, { title: 'undated' }), []);
    await deps.tasks.insert(taskRecord(orgId, { title: 'due', due_at: new Date(Date.UTC(2026, 1, 1)) }), []);
    const list = await deps.tasks.list(orgId, { sort: 'due_at', order: 'asc', limit: 10, after: undefined });
    expect(list.items.map((task) => task.title)).toEqual(['due', 'undated']);
    const task = list.items[0]!;
    const tries = await Promise.all(
      [1, 2].map(() => deps.tasks.update(orgId, task.id, { status: 'completed', completed_at: new Date() }, [], 'open')),
    );
    expect(tries.filter((written) => written !== null)).toHaveLength(1);
  });

  it("counts every tag of an organization's live records, and names referenced records even once deleted", async () => {
    const orgId = newId('organization');
    await deps.companies.insert(companyRecord(orgId, { tags: ['vip', 'b2b'] }), []);
    await deps.deals.insert(dealRecord(orgId, { tags: ['vip'] }), []);
    const gone = await deps.deals.insert(dealRecord(orgId, { title: 'Gone', tags: ['old'] }), []);
    await deps.deals.updateAtRevision(orgId, gone.id, gone.rev, { deleted_at: new Date() }, []);
    expect(await deps.tags.counts(orgId)).toEqual([
      { name: 'vip', count: 2 },
      { name: 'b2b', count: 1 },
    ]);
    expect(await deps.refs.dealTitles(orgId, [gone.id])).toEqual(new Map([[gone.id, 'Gone']]));
    expect(await deps.refs.exists('deals', orgId, gone.id)).toBe(false);
  });
});
