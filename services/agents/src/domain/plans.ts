import { AppError } from '@crm/shared';

/**
 * Active AI agents each plan includes (the catalogue leaves the numbers to us; README). Free has none: creating,
 * replacing or activating an agent answers PLAN_RESTRICTION.
 */
export const ACTIVE_AGENT_LIMITS: Record<string, number> = {
  free: 0,
  starter: 1,
  pro: 10,
  enterprise: Number.POSITIVE_INFINITY,
};

export const activeAgentLimit = (plan: string): number => ACTIVE_AGENT_LIMITS[plan] ?? 0;

export function requireAgentsInPlan(plan: string): void {
  if (activeAgentLimit(plan) > 0) return;
  throw new AppError('PLAN_RESTRICTION', `AI agents are not included in the ${plan || 'free'} plan; upgrade to starter or above.`, {
    feature: 'ai_agents',
    plan: plan || 'free',
  });
}

export const activeLimitReached = (plan: string, limit: number): AppError =>
  new AppError(
    'PLAN_RESTRICTION',
    `The ${plan} plan includes ${limit} active AI agent${limit === 1 ? '' : 's'}; deactivate one or upgrade.`,
    { feature: 'ai_agents.active', plan, limit },
  );
