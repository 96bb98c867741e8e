import { newId, notFound, type PageRequest, type Revised, writeRevision } from '@crm/shared';
import { agentInputBody, parseOrThrow, type AgentInput } from '@crm/shared/schemas';
import type { AgentRecord, BusinessHoursRecord } from '../repository/agent.repository';
import type { AgentsDeps } from './deps';
import { requireAgentsInPlan } from './plans';
import { checkReferences } from './references';
import { viewAgent, type AgentView } from './views';

/** Without replyDelayMs an agent answers after 3 s: quick, but not instant enough to look like a bot. */
export const DEFAULT_REPLY_DELAY_MS = 3_000;
export const DEFAULT_TEMPERATURE = 0.3;

export async function requireAgent(deps: AgentsDeps, orgId: string, id: string): Promise<Revised<AgentRecord>> {
  const record = await deps.agents.getById(orgId, id);
  if (!record) throw notFound('AI agent');
  return record;
}

/** The stored configuration of a validated AiAgentInput (camelCase in, snake_case stored and answered). */
function configurationOf(
  input: AgentInput,
  assignTo: { id: string; name: string } | null,
): Pick<AgentRecord, 'name' | 'type' | 'description' | 'scope' | 'behavior' | 'ai_config'> {
  const { scope, behavior, aiConfig } = input;
  const hours = behavior.businessHours;
  return {
    name: input.name,
    type: input.type,
    description: input.description ?? null,
    scope: { sources: scope.sources, chatapp_instance_ids: scope.chatappInstanceIds ?? [], tags: scope.tags ?? [] },
    behavior: {
      strategy: behavior.strategy,
      reply_delay_ms: behavior.replyDelayMs ?? DEFAULT_REPLY_DELAY_MS,
      max_replies_per_conversation: behavior.maxRepliesPerConversation ?? null,
      handoff: {
        enabled: behavior.handoff?.enabled ?? false,
        assign_to: assignTo,
        triggers: behavior.handoff?.triggers ?? [],
      },
      business_hours: hours
        ? { timezone: hours.timezone ?? null, days: (hours.days as BusinessHoursRecord['days'] | undefined) ?? null }
        : null,
    },
    ai_config: {
      instructions: aiConfig.instructions,
      model: aiConfig.model ?? null,
      temperature: aiConfig.temperature ?? DEFAULT_TEMPERATURE,
    },
  };
}

export async function listAgents(
  deps: AgentsDeps,
  orgId: string,
  query: PageRequest & { type?: string | null; is_active?: boolean | null },
) {
  const [page, total] = await Promise.all([deps.agents.list(orgId, query), deps.agents.countAll(orgId)]);
  return { items: page.items.map(viewAgent), hasMore: page.hasMore, next: page.next, total };
}

export async function getAgent(deps: AgentsDeps, orgId: string, id: string): Promise<AgentView> {
  return viewAgent(await requireAgent(deps, orgId, id));
}

/** #71: created inactive, every reference checked first. */
export async function createAgent(deps: AgentsDeps, orgId: string, plan: string, rawBody: unknown): Promise<AgentView> {
  const input = parseOrThrow(agentInputBody, rawBody);
  requireAgentsInPlan(plan);
  const assignTo = await checkReferences(deps, orgId, input);
  const now = deps.now();
  const record: AgentRecord = {
    id: newId('aiAgent'),
    org_id: orgId,
    ...configurationOf(input, assignTo),
    is_active: false,
    deleted_at: null,
    created_at: now,
    updated_at: now,
  };
  await deps.agents.insert(record);
  return viewAgent(record);
}

/** #75 and its alias #76: the whole configuration is replaced; `is_active` changes only through #78/#79. */
export async function replaceAgent(deps: AgentsDeps, orgId: string, plan: string, id: string, rawBody: unknown): Promise<AgentView> {
  const input = parseOrThrow(agentInputBody, rawBody);
  await requireAgent(deps, orgId, id);
  requireAgentsInPlan(plan);
  const assignTo = await checkReferences(deps, orgId, input);
  return writeRevision({
    read: () => requireAgent(deps, orgId, id),
    plan: () => ({ set: { ...configurationOf(input, assignTo), updated_at: deps.now() } }),
    view: viewAgent,
    write: (current, set) => deps.agents.updateAtRevision(orgId, id, current.rev, set),
  });
}

/** #77: the agent disappears from every route; its runs stay readable and a run already under way finishes. */
export async function deleteAgent(deps: AgentsDeps, orgId: string, id: string): Promise<void> {
  if (!(await deps.agents.softDelete(orgId, id, deps.now()))) throw notFound('AI agent');
  await deps.agents.releaseSlot(orgId, id);
}
