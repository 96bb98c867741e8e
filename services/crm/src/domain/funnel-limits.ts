import { AppError } from '@crm/shared';
import type { Plan } from '../repository/organization.repository';
import type { CrmDeps } from './deps';

/**
 * Active (non-archived) funnels a plan allows. Archived funnels do not count: archiving is how a customer
 * frees a slot without losing deal history; unarchiving is checked against the same limit.
 */
export const FUNNEL_LIMITS: Record<Plan, number> = {
  free: 1,
  starter: 3,
  pro: 20,
  enterprise: Number.POSITIVE_INFINITY,
};

/** Refuses with PLAN_RESTRICTION when one more active funnel would exceed the plan. */
export async function requireFunnelSlot(deps: Pick<CrmDeps, 'organizations' | 'funnels'>, orgId: string): Promise<void> {
  const [organization, active] = await Promise.all([
    deps.organizations.getById(orgId),
    deps.funnels.count(orgId, { includeArchived: false }),
  ]);
  const plan = organization?.plan ?? 'free';
  const limit = FUNNEL_LIMITS[plan];
  if (active >= limit) {
    throw new AppError(
      'PLAN_RESTRICTION',
      `The ${plan} plan allows ${limit} active funnel${limit === 1 ? '' : 's'}; archive one or upgrade the plan.`,
      {
        feature: 'funnels',
        plan,
        limit,
      },
    );
  }
}
