import type { Conversation } from '@crm/proto/gen/messaging/v1/messaging';
import type { AgentRecord } from '../repository/agent.repository';

/** The part of the inbound message and its conversation the scope rules look at. */
export interface InboundFacts {
  channel: string;
  /** The chatapp number of the conversation; null on other channels. */
  instanceId: string | null;
}

/** Source and number; the contact's tags are checked separately (they cost a CRM call). */
export function channelInScope(agent: AgentRecord, facts: InboundFacts): boolean {
  const { sources, chatapp_instance_ids: numbers } = agent.scope;
  if (!(sources as string[]).includes(facts.channel)) return false;
  if (facts.channel === 'chatapp' && numbers.length > 0) return facts.instanceId !== null && numbers.includes(facts.instanceId);
  return true;
}

/** Scope tags limit the agent to contacts with one of them (case-insensitive, as tags are matched elsewhere). */
export function tagsInScope(agent: AgentRecord, contactTags: string[]): boolean {
  if (agent.scope.tags.length === 0) return true;
  const have = new Set(contactTags.map((tag) => tag.toLowerCase()));
  return agent.scope.tags.some((tag) => have.has(tag.toLowerCase()));
}

export const factsOf = (conversation: Conversation): InboundFacts => ({
  channel: conversation.channel,
  instanceId: conversation.channel === 'chatapp' ? (conversation.chatapp_instance?.id ?? null) : null,
});

/** The first handoff keyword the contact's text contains (whole words, case-insensitive), or null. */
export function handoffKeyword(agent: AgentRecord, text: string): string | null {
  const { handoff } = agent.behavior;
  if (!handoff.enabled) return null;
  const lower = text.toLowerCase();
  for (const trigger of handoff.triggers) {
    if (trigger.type !== 'keywords') continue;
    for (const keyword of trigger.keywords) {
      const escaped = keyword.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(lower)) return keyword;
    }
  }
  return null;
}

/** The failed-runs-in-a-row threshold of the `consecutive_failures` trigger, or null without one. */
export function failureThreshold(agent: AgentRecord): number | null {
  const { handoff } = agent.behavior;
  if (!handoff.enabled) return null;
  const trigger = handoff.triggers.find((t) => t.type === 'consecutive_failures');
  return trigger?.type === 'consecutive_failures' ? trigger.count : null;
}

export const handsOffOnModelRequest = (agent: AgentRecord): boolean =>
  agent.behavior.handoff.enabled && agent.behavior.handoff.triggers.some((t) => t.type === 'model_request');
