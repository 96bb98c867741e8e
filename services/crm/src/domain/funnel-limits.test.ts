import { describe, expect, it } from 'vitest';
import type { Plan } from '../repository/organization.repository';
import type { CrmDeps } from './deps';
import { requireFunnelSlot } from './funnel-limits';
import { planAllows } from './plans';

const depsWith = (plan: Plan | null, activeFunnels: number) =>
  ({
    organizations: { getById: async () => (plan ? { plan } : null) },
    funnels: { count: async (_orgId: string, options: { includeArchived: boolean }) => (options.includeArchived ? 99 : activeFunnels) },
  }) as unknown as Pick<CrmDeps, 'organizations' | 'funnels'>;

describe('plan rules', () => {
  it.each([
    ['free', 1],
    ['starter', 3],
    ['pro', 20],
  ] as const)('the %s plan allows %i active funnels: archived ones do not count', async (plan, limit) => {
    await expect(requireFunnelSlot(depsWith(plan, limit - 1), 'org_a')).resolves.toBeUndefined();
    await expect(requireFunnelSlot(depsWith(plan, limit), 'org_a')).rejects.toMatchObject({
      code: 'PLAN_RESTRICTION',
      details: { feature: 'funnels', plan, limit },
    });
  });

  it('puts no limit on enterprise, and treats an unknown organization as free', async () => {
    await expect(requireFunnelSlot(depsWith('enterprise', 10_000), 'org_a')).resolves.toBeUndefined();
    await expect(requireFunnelSlot(depsWith(null, 1), 'org_a')).rejects.toMatchObject({ details: { plan: 'free', limit: 1 } });
  });

  it('keeps the contact funnel stage for Starter and above', () => {
    expect(planAllows('free', 'contact_funnel_stage')).toBe(false);
    expect((['starter', 'pro', 'enterprise'] as const).every((plan) => planAllows(plan, 'contact_funnel_stage'))).toBe(true);
  });
});
