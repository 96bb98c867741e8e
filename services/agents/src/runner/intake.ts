import type { Conversation } from '@crm/proto/gen/messaging/v1/messaging';
import { newId, nullIfNotFound, type DomainEvent } from '@crm/shared';
import type { MessageObject } from '@crm/shared/events';
import type { SkipReason } from '@crm/shared/schemas';
import type { AgentsDeps } from '../domain/deps';
import type { AgentRecord } from '../repository/agent.repository';
import type { ConversationStateRecord } from '../repository/conversation-state.repository';
import type { RunRecord } from '../repository/run.repository';
import { withinBusinessHours } from './business-hours';
import { organizationTimezone } from './organization';
import { heldByAnother, makePending, type Claim } from './pending';
import { channelInScope, factsOf, tagsInScope, type InboundFacts } from './rules';
import { countRun } from './run-metrics';

export const TRIGGER_EVENT = 'message.received.from_contact';

/** The message's conversation is gone (a contact merge folded it before its message was taken in). */
class ConversationGone extends Error {}

/**
 * What every agent's decision about one inbound message shares. The conversation and the CRM's answers are fetched
 * once, and only for a rule that needs them: an agent that answers always, on any number, needs neither.
 */
class InboundContext {
  private conversationRead: Promise<Conversation | null> | undefined;
  private tags: Promise<string[]> | undefined;
  private timezone: Promise<string> | undefined;

  constructor(
    private readonly deps: AgentsDeps,
    readonly orgId: string,
    readonly message: MessageObject,
    readonly activeIds: Set<string>,
  ) {}

  /** The message's conversation as messaging has it now; ConversationGone when a contact merge folded it. */
  async conversation(): Promise<Conversation> {
    this.conversationRead ??= nullIfNotFound(this.deps.messaging.getConversation({ org_id: this.orgId, id: this.message.conversation_id }));
    const conversation = await this.conversationRead;
    if (!conversation) throw new ConversationGone();
    return conversation;
  }

  contactTags(): Promise<string[]> {
    this.tags ??= this.deps.crm.contacts
      .getContactFields({ org_id: this.orgId, id: this.message.contact_id })
      .then((contact) => contact.tags);
    return this.tags;
  }

  organizationTimezone(): Promise<string> {
    this.timezone ??= organizationTimezone(this.deps, this.orgId);
    return this.timezone;
  }
}

/**
 * A contact's message arrived: every active agent of the organization records one run for it — skipped with its
 * reason, or waiting for its reply delay. Idempotent per event and agent, so a redelivered event (after a crash
 * or a rebalance) records nothing twice.
 */
export async function takeInboundMessage(deps: AgentsDeps, event: DomainEvent<'message.received'>): Promise<void> {
  const message = event.data.object;
  if (message.direction !== 'inbound') return;
  const agents = await deps.agents.listActive(event.org_id);
  if (agents.length === 0) return;
  const context = new InboundContext(deps, event.org_id, message, new Set(agents.map((agent) => agent.id)));
  for (const agent of agents) await recordRun(deps, agent, event.id, context);
}

async function recordRun(deps: AgentsDeps, agent: AgentRecord, eventId: string, context: InboundContext): Promise<void> {
  const now = deps.now();
  const inboundAt = new Date(context.message.created_at);
  const base: RunRecord = {
    id: newId('agentRun'),
    org_id: context.orgId,
    agent: { id: agent.id, name: agent.name, type: agent.type },
    conversation_id: context.message.conversation_id,
    contact_id: context.message.contact_id,
    channel: context.message.channel,
    event_id: eventId,
    trigger_event: TRIGGER_EVENT,
    trigger_message_id: context.message.id,
    inbound_at: Number.isNaN(inboundAt.getTime()) ? now : inboundAt,
    status: 'running',
    skip_reason: null,
    error_message: null,
    messages_sent: [],
    handoff: null,
    usage: null,
    model: null,
    duration_ms: null,
    started_at: now,
    completed_at: null,
    phase: null,
    due_at: null,
    lease_until: null,
    reply_message_id: newId('message'),
  };
  // A conversation merged away before its message was taken in gets no run: there is nothing to answer in.
  const decision = await decide(deps, agent, context).catch((error: unknown) => {
    if (error instanceof ConversationGone) return null;
    throw error;
  });
  if (!decision) return;
  const { reason, state } = decision;
  const dueAt = new Date(Math.max(now.getTime(), base.inbound_at.getTime() + agent.behavior.reply_delay_ms));
  const run: RunRecord = reason
    ? { ...base, status: 'skipped', skip_reason: reason, completed_at: now, duration_ms: 0 }
    : { ...base, phase: 'waiting', due_at: dueAt };
  const claim: Claim = { agentId: agent.id, activeIds: context.activeIds };
  // Inserted first, read only when it was there already: a redelivered event is rare, every event pays a read.
  if (await deps.runs.insert(run)) {
    if (reason) countRun('skipped');
    else await wait(deps, run, claim, state);
    return;
  }
  // Recorded by an earlier delivery of this event, which may have stopped before its wait became the pending one.
  const existing = await deps.runs.getByEvent(eventId, agent.id);
  if (existing?.phase === 'waiting') await wait(deps, existing, claim);
}

/**
 * The recorded run claims the conversation and becomes its pending run (one write), and waits for its delay; it is
 * skipped instead when another active agent claimed the conversation since the intake read its state.
 */
async function wait(deps: AgentsDeps, run: RunRecord, claim: Claim, known?: ConversationStateRecord): Promise<void> {
  const lost = await makePending(deps, run, claim, known);
  if (!lost) {
    if (run.due_at) deps.runScheduled(run.due_at);
    return;
  }
  if (await deps.runs.skipWaiting(run.id, lost, deps.now())) countRun('skipped');
}

/**
 * Null when the agent answers this message (with the conversation's state it read, for the next write);
 * otherwise why not. The agent that passes claims the conversation when its run becomes the pending one
 * (makePending): the first active agent to answer a conversation keeps it; one deactivated or deleted loses it.
 */
async function decide(
  deps: AgentsDeps,
  agent: AgentRecord,
  context: InboundContext,
): Promise<{ reason: SkipReason | null; state?: ConversationStateRecord }> {
  const { orgId } = context;
  const conversationId = context.message.conversation_id;
  if (!channelInScope(agent, await scopeFacts(agent, context))) return { reason: 'outside_scope' };
  if (!tagsInScope(agent, agent.scope.tags.length ? await context.contactTags() : [])) return { reason: 'outside_scope' };
  let state = await deps.states.get(orgId, conversationId);
  if (state.handed_off) {
    // Handed to a person, who has since unassigned it: the agents may answer again.
    if ((await context.conversation()).assigned_to) return { reason: 'handed_off' };
    await deps.states.compareAndSet(
      orgId,
      conversationId,
      { handed_off: true },
      { handed_off: false, agent_id: null, consecutive_failures: 0 },
    );
    state = await deps.states.get(orgId, conversationId);
  }
  if (agent.behavior.strategy === 'when_unassigned' && (await context.conversation()).assigned_to)
    return { reason: 'conversation_assigned' };
  if (
    agent.behavior.strategy === 'outside_business_hours' &&
    withinBusinessHours(agent.behavior.business_hours, await context.organizationTimezone(), deps.now())
  )
    return { reason: 'inside_business_hours' };
  const cap = agent.behavior.max_replies_per_conversation;
  if (cap !== null && (await deps.runs.countReplies(orgId, conversationId, agent.id)) >= cap) return { reason: 'reply_cap_reached' };
  if (heldByAnother(state, { agentId: agent.id, activeIds: context.activeIds })) return { reason: 'another_agent_answering' };
  return { reason: null, state };
}

/** The facts the scope rules look at; the message has its channel, and only a scope of numbers needs the conversation's. */
async function scopeFacts(agent: AgentRecord, context: InboundContext): Promise<InboundFacts> {
  const { channel } = context.message;
  if (channel !== 'chatapp' || agent.scope.chatapp_instance_ids.length === 0) return { channel, instanceId: null };
  return factsOf(await context.conversation());
}
