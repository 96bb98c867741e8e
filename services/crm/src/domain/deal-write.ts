import { notFound, type OutboxEntry } from '@crm/shared';
import type { DealRecord } from '../repository/deal.repository';
import { viewDeal, viewDeals, type DealView } from './deal.view';
import type { CrmDeps } from './deps';
import { CONFLICT, writeWithRetry } from './revisioned-write';

export interface PlannedDealWrite {
  /** The fields to change; empty means "nothing changes": 200 with the deal as it is, and no event. */
  set: Partial<DealRecord>;
  /** The events of the change, built from the deal after (`view`) and before (`before`) it. */
  events: (view: DealView, before: DealView) => OutboxEntry[];
}

export const NOTHING: PlannedDealWrite = { set: {}, events: () => [] };

/**
 * Read, plan, write conditionally on the revision read, retry when another writer (of any replica) won. The
 * change and its events land in one single-document update, so no reader ever sees one without the other.
 */
export function writeDeal(
  deps: CrmDeps,
  orgId: string,
  id: string,
  plan: (current: DealRecord) => Promise<PlannedDealWrite>,
): Promise<DealView> {
  return writeWithRetry('deals', async () => {
    const current = await deps.deals.getById(orgId, id);
    if (!current) throw notFound('deal');
    const planned = await plan(current);
    if (Object.keys(planned.set).length === 0) return viewDeal(deps, orgId, current);

    const next: DealRecord = { ...current, ...planned.set };
    // Both views in one batch of lookups.
    const [view, before] = await viewDeals(deps, orgId, [next, current]);
    if (!view || !before) throw new Error('viewDeals returned fewer views than records');
    const written = await deps.deals.updateAtRevision(orgId, id, current.rev, planned.set, planned.events(view, before));
    if (!written) return CONFLICT;
    deps.eventsWritten('deals');
    return view;
  });
}
