import { retryOnConflict, WriteConflict } from '@crm/shared';
import type { SkipReason } from '@crm/shared/schemas';
import type { AgentsDeps } from '../domain/deps';
import type { ConversationStateRecord } from '../repository/conversation-state.repository';
import type { RunRecord } from '../repository/run.repository';

/** Who may answer a conversation: the first active agent to answer it keeps it; a deactivated or deleted one loses it. */
export interface Claim {
  agentId: string;
  /** The organization's active agents when the message arrived. */
  activeIds: ReadonlySet<string>;
}

/** Another active agent answers the conversation: `claim`'s agent skips it. */
export function heldByAnother(state: ConversationStateRecord, claim: Claim): boolean {
  return Boolean(state.agent_id && state.agent_id !== claim.agentId && claim.activeIds.has(state.agent_id));
}

/**
 * Claims the conversation for the run's agent and makes `run` its waiting run, in one conditional write, and skips
 * the run it replaces (`superseded`): a burst of messages within the reply delay gets one answer, written after the
 * last of them. A redelivered older message never takes the place of a newer waiting run. Another writer changing
 * the state meanwhile makes it read and decide again (the conflict policy); if that never settles, the error fails
 * the event's batch, which Kafka delivers again. Written after the run is stored, so that a crash in between
 * leaves a run that the event's redelivery finds and makes pending (intake.ts). Returns why the run must be skipped
 * when another active agent claimed the conversation first, otherwise null.
 */
export function makePending(deps: AgentsDeps, run: RunRecord, claim: Claim, known?: ConversationStateRecord): Promise<SkipReason | null> {
  // The state the caller just read serves the first try: the write below is conditional on what it says.
  let read: ConversationStateRecord | undefined = known;
  return retryOnConflict(async () => {
    const state = read ?? (await deps.states.get(run.org_id, run.conversation_id));
    read = undefined;
    if (heldByAnother(state, claim)) return 'another_agent_answering';
    const previous = state.pending_run_id;
    if (previous === run.id && state.agent_id === claim.agentId) return null;
    // A finished run stays named here (nothing clears it when it ends): it is replaced like a waiting one.
    const other = previous && previous !== run.id ? await deps.runs.getById(run.org_id, previous) : null;
    if (other?.phase && other.inbound_at.getTime() > run.inbound_at.getTime()) return null;
    const expected = { agent_id: state.agent_id, pending_run_id: previous };
    if (!(await deps.states.compareAndSet(run.org_id, run.conversation_id, expected, { agent_id: claim.agentId, pending_run_id: run.id })))
      throw new WriteConflict('conversation state');
    if (other?.phase === 'waiting') await deps.runs.skipWaiting(other.id, 'superseded', deps.now());
    return null;
  });
}

/** At execution (with the conversation's state as just read): another run that still waits or executes replaced this one. */
export async function isSuperseded(deps: AgentsDeps, run: RunRecord, state: ConversationStateRecord): Promise<boolean> {
  if (!state.pending_run_id || state.pending_run_id === run.id) return false;
  const other = await deps.runs.getById(run.org_id, state.pending_run_id);
  return Boolean(other?.phase) && (other?.inbound_at.getTime() ?? 0) >= run.inbound_at.getTime();
}
