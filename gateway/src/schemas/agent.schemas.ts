import {
  AGENT_STRATEGIES,
  AGENT_TYPES,
  CHANNELS,
  HANDOFF_TRIGGER_TYPES,
  RUN_STATUSES,
  SKIP_REASONS,
  WEEKDAYS,
  HHMM,
} from '@crm/shared/schemas';
import { z } from 'zod';
import { component, count, id, MemberRef, nullable, timestamp } from './registry';

const hhmm = z.string().regex(HHMM);

const HandoffTrigger = z.object({
  type: z.enum(HANDOFF_TRIGGER_TYPES),
  keywords: z.array(z.string()).default([]).describe('keywords: the words that hand the conversation to a person'),
  count: nullable(z.number().int().min(1)).describe('consecutive_failures: failed runs in a row'),
});

export const AiAgent = component(
  'AiAgent',
  z.object({
    id: id('aiAgent'),
    name: z.string(),
    type: z.enum(AGENT_TYPES),
    description: nullable(z.string()),
    scope: z.object({
      sources: z.array(z.enum(CHANNELS)).default([]),
      chatapp_instance_ids: z.array(id('chatInstance')).default([]).describe('empty: every number'),
      tags: z.array(z.string()).default([]).describe('empty: every contact; otherwise contacts with one of these tags'),
    }),
    behavior: z.object({
      strategy: z.enum(AGENT_STRATEGIES),
      reply_delay_ms: count.default(0),
      max_replies_per_conversation: nullable(z.number().int().min(1)),
      handoff: z.object({
        enabled: z.boolean().default(false),
        assign_to: nullable(MemberRef),
        triggers: z.array(HandoffTrigger).default([]),
      }),
      business_hours: nullable(
        z.object({
          timezone: nullable(z.string()).describe("null: the organization's timezone"),
          days: nullable(z.partialRecord(z.enum(WEEKDAYS), z.array(z.tuple([hhmm, hhmm])))).describe(
            'opening ranges [from, to] by weekday; null: Monday–Friday 09:00–18:00',
          ),
        }),
      ).describe("outside_business_hours agents answer outside these; null: Monday–Friday 09:00–18:00 in the organization's timezone"),
    }),
    ai_config: z.object({
      instructions: z.string(),
      model: nullable(z.string()).describe("null: the provider's default model"),
      temperature: z.number().min(0).max(1).default(0),
    }),
    is_active: z.boolean().default(false),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  'An AI agent. Request bodies are camelCase (AiAgentInput); responses are snake_case.',
);

export const AiAgentRun = component(
  'AiAgentRun',
  z.object({
    id: id('agentRun'),
    agent: z.object({ id: id('aiAgent'), name: z.string(), type: z.enum(AGENT_TYPES) }).describe('as it was when the run started'),
    conversation_id: nullable(id('conversation')),
    trigger_event: nullable(z.string()),
    status: z.enum(RUN_STATUSES),
    skip_reason: nullable(z.enum(SKIP_REASONS)),
    error_message: nullable(z.string()),
    messages_sent: z
      .array(z.object({ message_id: id('message'), content: z.string(), sent_at: timestamp, delay_ms: count.default(0) }))
      .default([]),
    handoff: nullable(z.object({ triggered: z.boolean().default(false), reason: z.string().default(''), summary: z.string().default('') })),
    usage: nullable(z.object({ tokens: count.default(0), cost_cents: count.default(0) })),
    model: nullable(z.string()),
    duration_ms: nullable(count),
    started_at: nullable(timestamp),
    completed_at: nullable(timestamp),
  }),
  'One time an agent acted on (or skipped) an inbound message.',
);
