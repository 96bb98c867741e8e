import type { Conversation } from '@crm/proto/gen/messaging/v1/messaging';
import { AppError, newEvent, type OutboxEntry } from '@crm/shared';
import type { SkipReason } from '@crm/shared/schemas';
import type { AgentsDeps } from '../domain/deps';
import { viewRun } from '../domain/views';
import type { ModelReply } from '../models/model-provider';
import type { AgentRecord } from '../repository/agent.repository';
import type { ConversationStateRecord } from '../repository/conversation-state.repository';
import type { ClaimedRun, RunRecord } from '../repository/run.repository';
import { handOff, type HandoffOutcome } from './handoff';
import { conversationHistory, summaryOf, unansweredText } from './history';
import { isSuperseded } from './pending';
import { failureThreshold, handoffKeyword, handsOffOnModelRequest } from './rules';
import { countRun } from './run-metrics';

type Outcome =
  | { status: 'skipped'; skip_reason: SkipReason }
  | { status: 'completed'; reply: ModelReply | null; sent: RunRecord['messages_sent']; handoff: HandoffOutcome | null }
  | { status: 'failed'; error_message: string; reply: ModelReply | null; handoff: HandoffOutcome | null };

/**
 * Executes a run whose reply delay is over, under this replica's lease: checks again what may have changed while
 * it waited, asks the model with the conversation's bounded history, replies through messaging's send path as the
 * agent, hands off when a trigger says so, and records the outcome. Every step can be repeated after a crash: the
 * reply's message id was chosen when the run was recorded, so a repeated send reaches the contact once.
 */
export async function executeRun(deps: AgentsDeps, run: ClaimedRun): Promise<void> {
  const outcome = await outcomeOf(deps, run);
  // One write: the conversation's state keeps naming this run as its pending one, which is harmless once the run
  // has finished (the next message's run replaces it, and a finished run supersedes nothing). A crash before it
  // leaves a run still executing whose lease expires and that runs again (its send is idempotent).
  await recordOutcome(deps, run, outcome);
}

/** The run's outcome, with its events; counted once, by the execution that finished it. */
async function recordOutcome(deps: AgentsDeps, run: RunRecord, outcome: Outcome): Promise<void> {
  const now = deps.now();
  const common = { completed_at: now, duration_ms: now.getTime() - run.started_at.getTime() };
  if (outcome.status === 'skipped') {
    if (await deps.runs.finish(run.id, { ...common, status: 'skipped', skip_reason: outcome.skip_reason })) countRun('skipped');
    return;
  }
  const reply = outcome.reply;
  const usage = reply
    ? {
        tokens: reply.usage.total_tokens,
        cost_cents: Math.ceil((reply.usage.total_tokens * deps.settings.costCentsPerMillionTokens) / 1e6),
      }
    : null;
  const set: Partial<RunRecord> = {
    ...common,
    status: outcome.status,
    model: reply?.model ?? null,
    usage,
    handoff: outcome.handoff,
    ...(outcome.status === 'completed' ? { messages_sent: outcome.sent } : { error_message: outcome.error_message }),
  };
  if (await deps.runs.finish(run.id, set, runEvents({ ...run, ...set }, now))) countRun(outcome.status, outcome.handoff !== null);
}

/**
 * A finished run's events: agent.run.completed or agent.run.failed, and agent.handoff.requested when it handed the
 * conversation to a person. A skipped run raises nothing.
 */
function runEvents(run: RunRecord, at: Date): OutboxEntry[] {
  const object = viewRun(run);
  const events: OutboxEntry[] = [
    newEvent(run.org_id, run.status === 'failed' ? 'agent.run.failed' : 'agent.run.completed', { object }, at),
  ];
  if (run.handoff?.triggered) events.push(newEvent(run.org_id, 'agent.handoff.requested', { object }, at));
  return events;
}

async function outcomeOf(deps: AgentsDeps, run: ClaimedRun): Promise<Outcome> {
  const state = await deps.states.read(run.org_id, run.conversation_id);
  if (await isSuperseded(deps, run, state)) return { status: 'skipped', skip_reason: 'superseded' };
  // Read at once: they are independent, and a run rarely stops at the checks between them. The conversation and
  // its history come in one call to messaging.
  const [agent, read] = await Promise.all([deps.agents.getForRun(run.org_id, run.agent.id), conversationHistory(deps, run)]);
  if (!agent) return { status: 'failed', error_message: 'The agent no longer exists.', reply: null, handoff: null };
  if (!read) return { status: 'failed', error_message: 'The conversation no longer exists.', reply: null, handoff: null };
  const { conversation, history } = read;
  const changed = await changedWhileWaiting(deps, agent, run, conversation, state);
  if (changed) return { status: 'skipped', skip_reason: changed };

  const keyword = handoffKeyword(agent, unansweredText(history));
  if (keyword) {
    const handoff = await handOff(deps, agent, run, `The contact wrote the handoff keyword "${keyword}".`, summaryOf(history));
    return { status: 'completed', reply: null, sent: [], handoff };
  }

  let reply: ModelReply;
  try {
    reply = await deps.model.complete({
      model: agent.ai_config.model ?? '',
      instructions: agent.ai_config.instructions,
      history,
      temperature: agent.ai_config.temperature,
      contactName: conversation.contact?.name ?? null,
      signal: AbortSignal.timeout(deps.settings.modelDeadlineMs),
    });
  } catch (error) {
    return failed(deps, agent, run, history, `The model failed: ${error instanceof Error ? error.message : String(error)}`, null);
  }

  const sent: RunRecord['messages_sent'] = [];
  if (reply.content.trim()) {
    try {
      sent.push(await sendReply(deps, agent, run, conversation, reply.content));
    } catch (error) {
      if (!(error instanceof AppError) || ['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT'].includes(error.code)) throw error;
      return failed(deps, agent, run, history, `The reply was refused: ${error.code}: ${error.message}`, reply);
    }
  }
  // A success ends a run of failures; with none counted (the common case) there is nothing to write.
  if (state.consecutive_failures > 0) await deps.states.compareAndSet(run.org_id, run.conversation_id, {}, { consecutive_failures: 0 });
  const handoff =
    reply.handoff && handsOffOnModelRequest(agent)
      ? await handOff(
          deps,
          agent,
          run,
          `The model asked for a person: ${reply.handoff.reason}`,
          reply.handoff.summary || summaryOf(history),
        )
      : null;
  return { status: 'completed', reply, sent, handoff };
}

/** What may have changed during the reply delay: a handoff, an assignment, the reply cap reached by another run. */
async function changedWhileWaiting(
  deps: AgentsDeps,
  agent: AgentRecord,
  run: RunRecord,
  conversation: Conversation,
  state: ConversationStateRecord,
): Promise<SkipReason | null> {
  if (state.handed_off) return 'handed_off';
  if (state.agent_id && state.agent_id !== agent.id) return 'another_agent_answering';
  if (agent.behavior.strategy === 'when_unassigned' && conversation.assigned_to) return 'conversation_assigned';
  const cap = agent.behavior.max_replies_per_conversation;
  if (cap !== null && (await deps.runs.countReplies(run.org_id, run.conversation_id, agent.id)) >= cap) return 'reply_cap_reached';
  return null;
}

/** Through messaging's send path (#53 rules: windows, templates, connection) with the agent as the sender. */
async function sendReply(deps: AgentsDeps, agent: AgentRecord, run: ClaimedRun, conversation: Conversation, content: string) {
  const message = await deps.messaging.sendMessage({
    org_id: run.org_id,
    sender_key_id: '',
    body: { contact_id: run.contact_id, channel: conversation.channel, conversation_id: run.conversation_id, type: 'text', content },
    sender: { type: 'ai_agent', id: agent.id, name: agent.name },
    message_id: run.reply_message_id,
    agent_run_id: run.id,
    first_send: run.first_execution,
  });
  const sentAt = new Date(message.created_at);
  return {
    message_id: message.id,
    content: message.content ?? content,
    sent_at: sentAt,
    delay_ms: Math.max(0, sentAt.getTime() - run.inbound_at.getTime()),
  };
}

/** A failed run; enough of them in a row hand the conversation to a person (the `consecutive_failures` trigger). */
async function failed(
  deps: AgentsDeps,
  agent: AgentRecord,
  run: RunRecord,
  history: Parameters<typeof summaryOf>[0],
  errorMessage: string,
  reply: ModelReply | null,
): Promise<Outcome> {
  deps.logger.warn({ run: run.id, agent: agent.id }, errorMessage);
  const failures = await deps.states.recordFailure(run.org_id, run.conversation_id);
  const threshold = failureThreshold(agent);
  const handoff =
    threshold !== null && failures >= threshold
      ? await handOff(deps, agent, run, `${failures} failed run${failures === 1 ? '' : 's'} in a row.`, summaryOf(history))
      : null;
  return { status: 'failed', error_message: errorMessage, reply, handoff };
}
