import type { Plan } from '../repository/organization.repository';

/** Plan-limited features and the plans that include them. The contact funnel starts at Starter (spec §2). */
const FEATURES = {
  contact_funnel_stage: ['starter', 'pro', 'enterprise'],
} as const satisfies Record<string, readonly Plan[]>;

export type PlanFeature = keyof typeof FEATURES;

export function planAllows(plan: Plan, feature: PlanFeature): boolean {
  return (FEATURES[feature] as readonly Plan[]).includes(plan);
}
