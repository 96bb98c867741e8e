import { retryOnConflict, WriteConflict } from '@crm/shared';
import type { AgentsDeps } from '../domain/deps';
import type { ConversationStateRecord } from '../repository/conversation-state.repository';
import type { RunRecord } from '../repository/run.repository';

/**
 * Makes `run` the conversation's waiting run and skips the one it replaces (`superseded`): a burst of messages
 * within the reply delay gets one answer, written after the last of them. A redelivered older message never
 * takes the place of a newer waiting run. Another run taking the place meanwhile makes it read and decide again
 * (the conflict policy); if that never settles, the error fails the event's batch, which Kafka delivers again.
 */
export function makePending(deps: AgentsDeps, run: RunRecord, known?: ConversationStateRecord): Promise<void> {
  // The state the caller just read serves the first try: the write below is conditional on what it says.
  let read: ConversationStateRecord | undefined = known;
  return retryOnConflict(async () => {
    const state = read ?? (await deps.states.get(run.org_id, run.conversation_id));
    read = undefined;
    const previous = state.pending_run_id;
    if (previous === run.id) return;
    if (previous) {
      const other = await deps.runs.getById(run.org_id, previous);
      if (other?.phase && other.inbound_at.getTime() > run.inbound_at.getTime()) return;
    }
    if (!(await deps.states.compareAndSet(run.org_id, run.conversation_id, { pending_run_id: previous }, { pending_run_id: run.id })))
      throw new WriteConflict('conversation state');
    if (previous) await deps.runs.supersede(previous, deps.now());
  });
}

/** At execution (with the conversation's state as just read): another run that still waits or executes replaced this one. */
export async function isSuperseded(deps: AgentsDeps, run: RunRecord, state: ConversationStateRecord): Promise<boolean> {
  if (!state.pending_run_id || state.pending_run_id === run.id) return false;
  const other = await deps.runs.getById(run.org_id, state.pending_run_id);
  return Boolean(other?.phase) && (other?.inbound_at.getTime() ?? 0) >= run.inbound_at.getTime();
}

export async function clearPending(deps: AgentsDeps, run: RunRecord): Promise<void> {
  await deps.states.compareAndSet(run.org_id, run.conversation_id, { pending_run_id: run.id }, { pending_run_id: null });
}
