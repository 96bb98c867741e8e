import type { Agent } from '@crm/proto/gen/agents/v1/agents';
import { iso, isoOrNull, type Nullable } from '@crm/shared';
import type { AgentRunObject } from '@crm/shared/events';
import type { AgentRecord } from '../repository/agent.repository';
import type { RunRecord } from '../repository/run.repository';

export type AgentView = Nullable<Agent>;
/** A run as GET /v1/ai-agents/runs/{runId} returns it, and as its events carry it. */
export type RunView = AgentRunObject;

export function viewAgent(record: AgentRecord): AgentView {
  const { behavior } = record;
  return {
    id: record.id,
    name: record.name,
    type: record.type,
    description: record.description,
    scope: record.scope,
    behavior: {
      strategy: behavior.strategy,
      reply_delay_ms: behavior.reply_delay_ms,
      max_replies_per_conversation: behavior.max_replies_per_conversation,
      handoff: {
        enabled: behavior.handoff.enabled,
        assign_to: behavior.handoff.assign_to,
        triggers: behavior.handoff.triggers.map((trigger) => ({
          type: trigger.type,
          keywords: trigger.type === 'keywords' ? trigger.keywords : [],
          count: trigger.type === 'consecutive_failures' ? trigger.count : null,
        })),
      },
      business_hours: behavior.business_hours && {
        timezone: behavior.business_hours.timezone,
        days: behavior.business_hours.days ?? undefined,
      },
    },
    ai_config: record.ai_config,
    is_active: record.is_active,
    created_at: iso(record.created_at),
    updated_at: iso(record.updated_at),
  };
}

export function viewRun(record: RunRecord): RunView {
  return {
    id: record.id,
    agent: record.agent,
    conversation_id: record.conversation_id,
    trigger_event: record.trigger_event,
    status: record.status,
    skip_reason: record.skip_reason,
    error_message: record.error_message,
    messages_sent: record.messages_sent.map((sent) => ({ ...sent, sent_at: iso(sent.sent_at) })),
    handoff: record.handoff,
    usage: record.usage,
    model: record.model,
    duration_ms: record.duration_ms,
    started_at: iso(record.started_at),
    completed_at: isoOrNull(record.completed_at),
  };
}
