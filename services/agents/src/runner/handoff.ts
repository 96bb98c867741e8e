import { AppError } from '@crm/shared';
import type { AgentsDeps } from '../domain/deps';
import type { AgentRecord } from '../repository/agent.repository';
import type { RunRecord } from '../repository/run.repository';

export interface HandoffOutcome {
  triggered: boolean;
  reason: string;
  summary: string;
}

/**
 * Hands the conversation to a person: assigns it to `handoff.assignTo` through messaging (its
 * `conversation.assigned` event; the conversation's `ai_agent` is cleared) and stops every agent answering it
 * until a person unassigns it.
 */
export async function handOff(
  deps: AgentsDeps,
  agent: AgentRecord,
  run: RunRecord,
  reason: string,
  summary: string,
): Promise<HandoffOutcome> {
  const assignee = agent.behavior.handoff.assign_to;
  let note = '';
  if (assignee) {
    try {
      await deps.messaging.assignConversation({ org_id: run.org_id, id: run.conversation_id, body: { assigned_to: assignee.id } });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'INVALID_REFERENCE') throw error;
      note = ` (${assignee.name} is no longer an active member: the conversation stays unassigned)`;
    }
  }
  const state = await deps.states.get(run.org_id, run.conversation_id);
  await deps.states.compareAndSet(
    run.org_id,
    run.conversation_id,
    { handed_off: state.handed_off },
    { handed_off: true, agent_id: null, consecutive_failures: 0 },
  );
  return { triggered: true, reason: `${reason}${note}`, summary };
}
