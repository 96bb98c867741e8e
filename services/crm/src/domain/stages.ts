import { AppError, notFound } from '@crm/shared';
import { createStageBody, MAX_STAGES, parseOrThrow, updateStageBody } from '@crm/shared/schemas';
import type { FunnelRecord, StageRecord } from '../repository/funnel.repository';
import type { CrmDeps } from './deps';
import { viewStage, type StageView } from './funnel.view';
import { newStage, validation, writeFunnel } from './funnels';

/** POST /v1/funnels/{id}/stages: inserted at `position` (default: last); the later stages shift down. */
export async function createStage(deps: CrmDeps, orgId: string, funnelId: string, rawBody: unknown): Promise<StageView> {
  const { position, ...input } = parseOrThrow(createStageBody, rawBody);
  const stage = newStage(input, deps.now());
  const funnel = await writeFunnel(deps, orgId, funnelId, async (current) => {
    if (current.stages.length >= MAX_STAGES) throw validation('stages', `a funnel has at most ${MAX_STAGES} stages`);
    return { stages: placed(current.stages, stage, position) };
  });
  return viewStage(deps, orgId, funnel, stage.id);
}

/** PATCH /v1/funnels/{id}/stages/{stageId}: a new `position` shifts the stages in between. */
export async function updateStage(deps: CrmDeps, orgId: string, funnelId: string, stageId: string, rawBody: unknown): Promise<StageView> {
  const { position, ...fields } = parseOrThrow(updateStageBody, rawBody);
  const funnel = await writeFunnel(deps, orgId, funnelId, async (current) => {
    const stage = requireStage(current, stageId);
    const next: StageRecord = {
      ...stage,
      ...(fields.name !== undefined ? { name: fields.name } : {}),
      ...(fields.color !== undefined ? { color: fields.color } : {}),
      ...(fields.probability !== undefined ? { probability: fields.probability } : {}),
    };
    const changed = JSON.stringify(next) !== JSON.stringify(stage);
    const index = current.stages.indexOf(stage);
    if (!changed && (position === undefined || Math.min(position, current.stages.length) === index + 1)) return {};
    const others = current.stages.filter((other) => other.id !== stageId);
    return { stages: placed(others, changed ? { ...next, updated_at: deps.now() } : next, position ?? index + 1) };
  });
  return viewStage(deps, orgId, funnel, stageId);
}

/**
 * DELETE /v1/funnels/{id}/stages/{stageId}: refused for the last stage (a funnel always has one to put deals
 * in) and while live deals of any status sit in the stage (they would lose their stage). The count and the write
 * are two documents and the store has no transactions: a deal placed into the stage in between keeps its stage
 * id (rendered with an empty name) and can still be moved or transferred.
 */
export async function deleteStage(deps: CrmDeps, orgId: string, funnelId: string, stageId: string): Promise<void> {
  await writeFunnel(deps, orgId, funnelId, async (current) => {
    requireStage(current, stageId);
    if (current.stages.length === 1) throw validation('stage_id', 'the last stage of a funnel cannot be deleted');
    const dealsCount = await deps.deals.countInStage(orgId, stageId);
    if (dealsCount > 0) {
      throw new AppError(
        'STAGE_HAS_DEALS',
        `The stage still holds ${dealsCount} deal${dealsCount === 1 ? '' : 's'}; move them to another stage first.`,
        { deals_count: dealsCount },
      );
    }
    return { stages: current.stages.filter((stage) => stage.id !== stageId) };
  });
}

function requireStage(funnel: FunnelRecord, stageId: string): StageRecord {
  const stage = funnel.stages.find((candidate) => candidate.id === stageId);
  if (!stage) throw notFound('stage');
  return stage;
}

/** Inserts at a 1-based position, clamped to the end of the list. */
function placed(stages: StageRecord[], stage: StageRecord, position: number | undefined): StageRecord[] {
  const result = [...stages];
  result.splice(Math.min(position ?? result.length + 1, result.length + 1) - 1, 0, stage);
  return result;
}
