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
    write: (current, set, events) => deps.deals.updateAtRevision(orgId, id, current.rev, set, events),
  });
  return view;
}
