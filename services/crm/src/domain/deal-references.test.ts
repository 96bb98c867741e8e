import { describe, expect, it } from 'vitest';
import type { FunnelRecord } from '../repository/funnel.repository';
import { checkDealLinks, placementFor } from './deal-references';
import type { CrmDeps } from './deps';

const stage = (id: string) => ({ id, name: id, color: null, probability: null, created_at: new Date(0), updated_at: new Date(0) });
const funnel = (id: string, fields: Partial<FunnelRecord> = {}): FunnelRecord => ({
  id,
  org_id: 'org_a',
  name: id,
  position: 1,
  default_at: null,
  is_archived: false,
  stages: [stage(`${id}_lead`), stage(`${id}_won`)],
  created_at: new Date(0),
  updated_at: new Date(0),
  ...fields,
});

const funnelsOf = (funnels: FunnelRecord[], defaultId?: string) =>
  ({
    funnels: {
      getById: async (_orgId: string, id: string) => funnels.find((candidate) => candidate.id === id) ?? null,
      getDefault: async () => funnels.find((candidate) => candidate.id === defaultId) ?? null,
    },
  }) as unknown as Pick<CrmDeps, 'funnels'>;

describe('where a deal goes', () => {
  const sales = funnel('fn_sales');
  const old = funnel('fn_old', { is_archived: true });
  const deps = funnelsOf([sales, old], 'fn_sales');

  it("takes the default funnel's first stage when the body names neither", async () => {
    expect(await placementFor(deps, 'org_a', undefined, undefined)).toEqual({ funnel: sales, stage: sales.stages[0] });
    expect((await placementFor(deps, 'org_a', 'fn_sales', 'fn_sales_won')).stage.id).toBe('fn_sales_won');
  });

  it('refuses a missing default, an unknown or archived funnel, and a stage of another funnel with INVALID_REFERENCE', async () => {
    await expect(placementFor(funnelsOf([]), 'org_a', undefined, undefined)).rejects.toMatchObject({
      code: 'INVALID_REFERENCE',
      details: { field: 'funnel_id', id: null },
    });
    await expect(placementFor(deps, 'org_a', 'fn_nope', undefined)).rejects.toMatchObject({
      details: { field: 'funnel_id', id: 'fn_nope' },
    });
    await expect(placementFor(deps, 'org_a', 'fn_old', undefined)).rejects.toMatchObject({ details: { field: 'funnel_id', id: 'fn_old' } });
    await expect(placementFor(deps, 'org_a', 'fn_sales', 'fn_old_lead')).rejects.toMatchObject({
      code: 'INVALID_REFERENCE',
      details: { field: 'stage_id', id: 'fn_old_lead' },
    });
  });

  it('names the first link that does not resolve, before anything is written', async () => {
    const links = {
      contacts: { getMany: async (_orgId: string, ids: string[]) => ids.filter((id) => id !== 'ct_gone').map((id) => ({ id })) },
      links: { companyExists: async (_orgId: string, id: string) => id === 'co_live' },
      members: { getActive: async (_orgId: string, id: string) => (id === 'mb_active' ? { id } : null) },
    } as unknown as Pick<CrmDeps, 'contacts' | 'links' | 'members'>;
    await expect(checkDealLinks(links, 'org_a', { contact_ids: ['ct_1', 'ct_gone'], company_id: 'co_live' })).rejects.toMatchObject({
      details: { field: 'contact_ids', id: 'ct_gone' },
    });
    await expect(checkDealLinks(links, 'org_a', { company_id: 'co_gone' })).rejects.toMatchObject({ details: { field: 'company_id' } });
    await expect(checkDealLinks(links, 'org_a', { assigned_to: 'mb_left' })).rejects.toMatchObject({ details: { field: 'assigned_to' } });
    await expect(
      checkDealLinks(links, 'org_a', { contact_ids: ['ct_1'], company_id: 'co_live', assigned_to: 'mb_active' }),
    ).resolves.toBeUndefined();
  });
});
