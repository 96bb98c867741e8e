import { WriteConflict } from '@crm/shared';
import { describe, expect, it } from 'vitest';
import type { FunnelRecord } from '../repository/funnel.repository';
import type { CrmDeps } from './deps';
import { createStage, deleteStage, updateStage } from './stages';

/** One funnel kept in memory, written only at the revision read (as the repository does). */
function funnelDeps(stageNames: string[], dealsInStage = 0) {
  const stages = stageNames.map((name) => ({
    id: `st_${name}`,
    name,
    color: null,
    probability: null,
    created_at: new Date(0),
    updated_at: new Date(0),
  }));
  let stored: FunnelRecord & { rev: number } = {
    id: 'fn_1',
    org_id: 'org_a',
    name: 'Sales',
    position: 1,
    default_at: null,
    is_archived: false,
    stages,
    created_at: new Date(0),
    updated_at: new Date(0),
    rev: 1,
  };
  const deps = {
    now: () => new Date(1_000),
    funnels: {
      getById: async () => structuredClone(stored),
      updateAtRevision: async (_orgId: string, _id: string, rev: number, set: Partial<FunnelRecord>) => {
        if (rev !== stored.rev) throw new WriteConflict('funnel');
        stored = { ...stored, ...set, rev: rev + 1 };
        return stored;
      },
    },
    deals: { countInStage: async () => dealsInStage, openTotalsByStage: async () => new Map() },
  } as unknown as CrmDeps;
  return { deps, names: () => stored.stages.map((stage) => stage.name) };
}

describe('stages of a funnel', () => {
  it('inserts a stage at a 1-based position, clamped to the end, and moves one to another position', async () => {
    const { deps, names } = funnelDeps(['lead', 'won']);
    await createStage(deps, 'org_a', 'fn_1', { name: 'proposal', position: 2 });
    await createStage(deps, 'org_a', 'fn_1', { name: 'lost', position: 99 });
    expect(names()).toEqual(['lead', 'proposal', 'won', 'lost']);
    await updateStage(deps, 'org_a', 'fn_1', 'st_lead', { position: 3 });
    expect(names()).toEqual(['proposal', 'won', 'lead', 'lost']);
  });

  it('refuses to delete the last stage, or a stage that holds deals', async () => {
    await expect(deleteStage(funnelDeps(['only']).deps, 'org_a', 'fn_1', 'st_only')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(deleteStage(funnelDeps(['lead', 'won'], 2).deps, 'org_a', 'fn_1', 'st_lead')).rejects.toMatchObject({
      code: 'STAGE_HAS_DEALS',
      details: { deals_count: 2 },
    });
    const { deps, names } = funnelDeps(['lead', 'won']);
    await deleteStage(deps, 'org_a', 'fn_1', 'st_lead');
    expect(names()).toEqual(['won']);
  });

  it('answers NOT_FOUND for a stage of no funnel', async () => {
    await expect(updateStage(funnelDeps(['lead']).deps, 'org_a', 'fn_1', 'st_nope', { name: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
