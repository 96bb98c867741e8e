import { notFound } from '@crm/shared';
import type { AgentsDeps } from './deps';
import { requireAgent } from './agents';
import { activeAgentLimit, activeLimitReached, requireAgentsInPlan } from './plans';
import { activeMember, checkNumbers } from './references';
import { viewAgent, type AgentView } from './views';

/**
 * #78: idempotent. Checks that the configuration still holds (its numbers exist, the handoff assignee is an
 * active member) and that the plan has an active-agent slot left, so an agent never goes live half-configured.
 */
export async function activateAgent(deps: AgentsDeps, orgId: string, plan: string, id: string): Promise<AgentView> {
  const agent = await requireAgent(deps, orgId, id);
  if (agent.is_active) return viewAgent(agent);
  requireAgentsInPlan(plan);
  await checkNumbers(deps, orgId, agent.scope.chatapp_instance_ids);
  if (agent.behavior.handoff.assign_to) await activeMember(deps, orgId, agent.behavior.handoff.assign_to.id);

  const limit = activeAgentLimit(plan);
  if (Number.isFinite(limit)) {
    let took = await deps.agents.takeSlot(orgId, id, limit, deps.now());
    if (!took) {
      // A slot may be held by a process that died mid-activation: rebuild from the active agents and try again.
      await deps.agents.repairSlots(orgId, deps.now());
      took = await deps.agents.takeSlot(orgId, id, limit, deps.now());
    }
    if (!took) throw activeLimitReached(plan, limit);
  }
  const updated = await deps.agents.setActive(orgId, id, true, deps.now());
  if (!updated) {
    await deps.agents.releaseSlot(orgId, id);
    throw notFound('AI agent');
  }
  return viewAgent(updated);
}

/** #79: idempotent; a run already waiting still answers (README). */
export async function deactivateAgent(deps: AgentsDeps, orgId: string, id: string): Promise<AgentView> {
  const agent = await requireAgent(deps, orgId, id);
  const updated = agent.is_active ? await deps.agents.setActive(orgId, id, false, deps.now()) : agent;
  if (!updated) throw notFound('AI agent');
  await deps.agents.releaseSlot(orgId, id);
  return viewAgent(updated);
}
