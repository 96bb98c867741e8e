import { AppError, newEvent, type PlannedChange } from '@crm/shared';
import { emptyActionBody, loseDealBody, moveDealBody, parseOrThrow, transferDealBody } from '@crm/shared/schemas';
import type { DealRecord, DealStatus } from '../repository/deal.repository';
import { previousOf, type DealView } from './deal.view';
import { placementFor, stageIn } from './deal-references';
import { writeDeal, type DealViews } from './deal-write';
import type { CrmDeps } from './deps';
import { requireFunnel } from './funnels';

const invalidStatus = (deal: DealRecord, action: string, needed: string) =>
  new AppError('INVALID_STATUS', `The deal is ${deal.status}; ${action} needs a deal that is ${needed}.`, { status: deal.status });

/**
 * #29: to another stage of the deal's current funnel (another funnel is #33). Needs an open deal; the current
 * stage answers 200 with no event.
 */
export async function moveDeal(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<DealView> {
  const body = parseOrThrow(moveDealBody, rawBody);
  return writeDeal(deps, orgId, id, async (current) => {
    if (current.status !== 'open') throw invalidStatus(current, 'move', 'open');
    const funnel = await requireFunnel(deps, orgId, current.funnel_id);
    if (funnel.is_archived)
      throw new AppError('INVALID_REFERENCE', 'The deal is in an archived funnel, which takes no moves; transfer it first.', {
        field: 'stage_id',
        id: body.stage_id,
      });
    const stage = stageIn(funnel, body.stage_id);
    if (stage.id === current.stage_id) return null;
    const at = deps.now();
    return {
      set: { stage_id: stage.id, updated_at: at },
      events: ({ view, before }) => [newEvent(orgId, 'deal.stage.changed', { object: view, previous: previousOf(before, ['stage']) }, at)],
    };
  });
}

/** #30: open → won. */
export async function winDeal(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<DealView> {
  parseOrThrow(emptyActionBody, rawBody);
  return writeDeal(deps, orgId, id, async (current) => {
    if (current.status !== 'open') throw invalidStatus(current, 'win', 'open');
    return statusChange(deps, orgId, current, 'won', { closed_at: deps.now() });
  });
}

/** #31: open → lost, with an optional reason (≤ 500 characters). */
export async function loseDeal(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<DealView> {
  const body = parseOrThrow(loseDealBody, rawBody);
  return writeDeal(deps, orgId, id, async (current) => {
    if (current.status !== 'open') throw invalidStatus(current, 'lose', 'open');
    return statusChange(deps, orgId, current, 'lost', { closed_at: deps.now(), lost_reason: body.lost_reason || null });
  });
}

/** #32: won/lost → open; closed_at and lost_reason are cleared. */
export async function reopenDeal(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<DealView> {
  parseOrThrow(emptyActionBody, rawBody);
  return writeDeal(deps, orgId, id, async (current) => {
    if (current.status === 'open') throw invalidStatus(current, 'reopen', 'won or lost');
    return statusChange(deps, orgId, current, 'open', { closed_at: null, lost_reason: null });
  });
}

/** deal.updated with the previous status and the previous values of the other fields the action changed. */
function statusChange(
  deps: CrmDeps,
  orgId: string,
  current: DealRecord,
  status: DealStatus,
  extra: Partial<DealRecord>,
): PlannedChange<DealRecord, DealViews> {
  const at = deps.now();
  const changed: Array<keyof DealView> = [
    'status',
    ...(['closed_at', 'lost_reason'] as const).filter((field) => field in extra && extra[field] !== current[field]),
  ];
  return {
    set: { status, ...extra, updated_at: at },
    events: ({ view, before }) => [newEvent(orgId, 'deal.updated', { object: view, previous: previousOf(before, changed) }, at)],
  };
}

/**
 * #33: to another, non-archived funnel, at the given stage of it or its first stage. The status is kept. The
 * source funnel may be archived: transferring is how deals leave an archived funnel.
 */
export async function transferDeal(deps: CrmDeps, orgId: string, id: string, rawBody: unknown): Promise<DealView> {
  const body = parseOrThrow(transferDealBody, rawBody);
  return writeDeal(deps, orgId, id, async (current) => {
    if (body.funnel_id === current.funnel_id) {
      throw new AppError(
        'VALIDATION_ERROR',
        "Invalid request: funnel_id: is the deal's current funnel; use POST /v1/deals/{id}/move to change stage.",
        {
          fields: [{ field: 'funnel_id', issue: "is the deal's current funnel; use move to change stage" }],
        },
      );
    }
    const { funnel, stage } = await placementFor(deps, orgId, body.funnel_id, body.stage_id);
    const at = deps.now();
    return {
      set: { funnel_id: funnel.id, stage_id: stage.id, updated_at: at },
      events: ({ view, before }) => [
        newEvent(orgId, 'deal.pipeline.transferred', { object: view, previous: previousOf(before, ['funnel', 'stage']) }, at),
      ],
    };
  });
}
