import { notFound, type PlannedChange, writeRevision } from '@crm/shared';
import type { DealRecord } from '../repository/deal.repository';
import { viewDeals, type DealView } from './deal.view';
import type { CrmDeps } from './deps';

/** The deal after a change and before it: deal.updated and deal.assigned carry both. */
export interface DealViews {
  view: DealView;
  before: DealView;
}

/**
 * Read, plan, write conditionally on the revision read (the storage kit's writeRevision). A null plan changes
 * nothing: 200 with the deal as it is, and no event.
 */
export async function writeDeal(
  deps: CrmDeps,
  orgId: string,
  id: string,
  plan: (current: DealRecord) => Promise<PlannedChange<DealRecord, DealViews> | null>,
): Promise<DealView> {
  const { view } = await writeRevision({
    read: async () => {
      const current = await deps.deals.getById(orgId, id);
      if (!current) throw notFound('deal');
      return current;
    },
    plan,
    view: async (next, current): Promise<DealViews> => {
      // Both views in one batch of lookups.
      const [view, before] = await viewDeals(deps, orgId, next === current ? [next] : [next, current]);
      if (!view) throw new Error('viewDeals returned fewer views than records');
      return { view, before: before ?? view };
    },
    write: (current, set, events) => {
      const { linked, unlinked } = contactsMoved(current, set);
      if (linked.length === 0 && unlinked.length === 0) return deps.deals.updateAtRevision(orgId, id, current.rev, set, events);
      // The contacts' stored deals_count move in the same transaction; a lost race (WriteConflict) aborts it whole.
      return deps.transaction(async (session) => {
        const updated = await deps.deals.updateAtRevision(orgId, id, current.rev, set, events, session);
        await deps.contacts.adjustCounts(orgId, linked, { deals_count: 1 }, session);
        await deps.contacts.adjustCounts(orgId, unlinked, { deals_count: -1 }, session);
        return updated;
      });
    },
  });
  return view;
}

/** The contacts a change of a live deal links it to and unlinks it from: a delete unlinks all of them. */
export function contactsMoved(current: DealRecord, set: Partial<DealRecord>): { linked: string[]; unlinked: string[] } {
  const before = new Set(current.contact_ids);
  const after = new Set(set.deleted_at ? [] : (set.contact_ids ?? current.contact_ids));
  return { linked: [...after].filter((id) => !before.has(id)), unlinked: [...before].filter((id) => !after.has(id)) };
}
