import { createLogger, newId, WriteConflict } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import { dealRecord, funnelRecord, noteRecord } from '../../../../test/support/crm-records';
import { useDatabase } from '../../../../test/support/integration';
import type { CrmDeps } from '../domain/deps';
import { createDeps } from '../wiring';

describe('deal and funnel repositories', () => {
  let deps: CrmDeps;
  useDatabase('crm_deals', (storage) => void (deps = createDeps(storage, createLogger('test', 'silent'))));

  it('sorts by expected close date with undated deals last ascending, and pages by value', async () => {
    const orgId = newId('organization');
    const dated = (day: number) => new Date(Date.UTC(2026, 5, day));
    for (const [title, close, value] of [
      ['later', dated(20), 30],
      ['none', null, 10],
      ['sooner', dated(10), 20],
    ] as const)
      await deps.deals.insert(dealRecord(orgId, { title, expected_close_date: close, value }), []);
    const titles = async (sort: 'expected_close_date' | 'value', order: 'asc' | 'desc', limit = 10) => {
      const seen: string[] = [];
      let after;
      do {
        const page = await deps.deals.list(orgId, { sort, order, limit, after });
        seen.push(...page.items.map((deal) => deal.title));
        after = page.next && JSON.parse(JSON.stringify(page.next));
      } while (after);
      return seen;
    };
    expect(await titles('expected_close_date', 'asc')).toEqual(['sooner', 'later', 'none']);
    expect(await titles('expected_close_date', 'desc', 1)).toEqual(['none', 'later', 'sooner']);
    expect(await titles('value', 'desc', 2)).toEqual(['later', 'sooner', 'none']);
    // The internal sort key stays out of the record.
    expect((await deps.deals.list(orgId, { sort: 'value', order: 'asc', limit: 1, after: undefined })).items[0]).not.toHaveProperty(
      'close_key',
    );
  });

  it('totals open live deals per stage and counts live deals per parent', async () => {
    const orgId = newId('organization');
    const contactId = newId('contact');
    await deps.deals.insert(dealRecord(orgId, { stage_id: 'st_a', value: 5, contact_ids: [contactId] }), []);
    await deps.deals.insert(dealRecord(orgId, { stage_id: 'st_a', value: 7 }), []);
    await deps.deals.insert(dealRecord(orgId, { stage_id: 'st_a', value: 100, status: 'won' }), []);
    const gone = await deps.deals.insert(dealRecord(orgId, { stage_id: 'st_b', value: 1, contact_ids: [contactId] }), []);
    await deps.deals.updateAtRevision(orgId, gone.id, gone.rev, { deleted_at: new Date() }, []);
    expect(await deps.deals.openTotalsByStage(orgId, ['st_a', 'st_b'])).toEqual(new Map([['st_a', { deals: 2, value: 12 }]]));
    expect(await deps.deals.countLive(orgId, { contact_id: contactId })).toBe(1);
    expect(await deps.deals.countInStage(orgId, 'st_a')).toBe(3);
  });

  it("counts a deal's live notes", async () => {
    const orgId = newId('organization');
    const deal = await deps.deals.insert(dealRecord(orgId), []);
    await deps.notes.insert(noteRecord(orgId, { deal_id: deal.id }), []);
    await deps.notes.insert(noteRecord(orgId, { deal_id: deal.id }, { deleted_at: new Date() }), []);
    expect(await deps.dealLinks.notesByDeal(orgId, [deal.id])).toEqual(new Map([[deal.id, 1]]));
  });

  it('takes the funnel made default last as the default, pages funnels by position, and refuses a stale revision', async () => {
    const orgId = newId('organization');
    const first = await deps.funnels.insert(funnelRecord(orgId, { name: 'One', position: 1, default_at: new Date(1_000) }));
    const second = await deps.funnels.insert(funnelRecord(orgId, { name: 'Two', position: 2, default_at: new Date(2_000) }));
    await deps.funnels.insert(funnelRecord(orgId, { name: 'Archived', position: 3, default_at: new Date(3_000), is_archived: true }));
    expect((await deps.funnels.getDefault(orgId))?.id).toBe(second.id);
    const page = await deps.funnels.list(orgId, { includeArchived: false, limit: 1, after: undefined });
    expect(page.items.map((funnel) => funnel.name)).toEqual(['One']);
    const next = await deps.funnels.list(orgId, { includeArchived: false, limit: 1, after: JSON.parse(JSON.stringify(page.next)) });
    expect(next.items.map((funnel) => funnel.name)).toEqual(['Two']);
    await deps.funnels.updateAtRevision(orgId, first.id, 1, { name: 'Renamed' });
    await expect(deps.funnels.updateAtRevision(orgId, first.id, 1, { name: 'Stale' })).rejects.toBeInstanceOf(WriteConflict);
    expect(await deps.funnels.getById(orgId, first.id)).toMatchObject({ name: 'Renamed', rev: 2 });
  });
});
