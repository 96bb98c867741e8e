import type { Funnel, Stage } from '@crm/proto/gen/crm/v1/funnels';
import { iso, type Nullable } from '@crm/shared';
import type { FunnelRecord, StageRecord } from '../repository/funnel.repository';
import type { Totals } from '../repository/deal.repository';
import type { CrmDeps } from './deps';

export type FunnelView = Nullable<Funnel>;
export type StageView = Nullable<Stage>;

const NONE: Totals = { deals: 0, value: 0 };

/**
 * Renders funnels with their stages and the totals of their OPEN live deals, aggregated from the deals on
 * every read (one aggregation for any number of funnels): no counter exists that could drift. A funnel's
 * totals are the sum of its stages' (every deal sits in a stage of its funnel; a stage holding deals cannot be
 * deleted).
 */
export async function viewFunnels(deps: Pick<CrmDeps, 'deals' | 'funnels'>, orgId: string, records: FunnelRecord[]): Promise<FunnelView[]> {
  const stageIds = records.flatMap((record) => record.stages.map((stage) => stage.id));
  const [byStage, defaultFunnel] = await Promise.all([deps.deals.openTotalsByStage(orgId, stageIds), deps.funnels.getDefault(orgId)]);
  return records.map((record) => {
    const totals = record.stages.reduce((sum, stage) => {
      const stageTotals = byStage.get(stage.id) ?? NONE;
      return { deals: sum.deals + stageTotals.deals, value: sum.value + stageTotals.value };
    }, NONE);
    return {
      id: record.id,
      name: record.name,
      position: record.position,
      is_default: record.id === defaultFunnel?.id,
      is_archived: record.is_archived,
      stages: record.stages.map((stage, index) => stageView(record.id, stage, index, byStage.get(stage.id) ?? NONE)),
      total_deals: totals.deals,
      total_value: totals.value,
      created_at: iso(record.created_at),
      updated_at: iso(record.updated_at),
    };
  });
}

export async function viewFunnel(deps: Pick<CrmDeps, 'deals' | 'funnels'>, orgId: string, record: FunnelRecord): Promise<FunnelView> {
  const [view] = await viewFunnels(deps, orgId, [record]);
  if (!view) throw new Error('viewFunnels returned nothing for one record');
  return view;
}

export async function viewStage(deps: Pick<CrmDeps, 'deals'>, orgId: string, funnel: FunnelRecord, stageId: string): Promise<StageView> {
  const index = funnel.stages.findIndex((stage) => stage.id === stageId);
  const stage = funnel.stages[index];
  if (!stage) throw new Error(`stage ${stageId} is not in funnel ${funnel.id}`);
  const totals = await deps.deals.openTotalsByStage(orgId, [stageId]);
  return stageView(funnel.id, stage, index, totals.get(stageId) ?? NONE);
}

function stageView(funnelId: string, stage: StageRecord, index: number, totals: Totals): StageView {
  return {
    id: stage.id,
    funnel_id: funnelId,
    name: stage.name,
    position: index + 1,
    color: stage.color,
    probability: stage.probability,
    total_deals: totals.deals,
    total_value: totals.value,
    created_at: iso(stage.created_at),
    updated_at: iso(stage.updated_at),
  };
}
