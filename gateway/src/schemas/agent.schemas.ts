import { AGENT_STRATEGIES, AGENT_TYPES, CHANNELS, HANDOFF_TRIGGER_TYPES, RUN_STATUSES, SKIP_REASONS } from '@crm/shared/schemas';
import { z } from 'zod';
import { component, nullable, Ref, timestamp } from './registry';

const HandoffTrigger = z.object({
  type: z.enum(HANDOFF_TRIGGER_TYPES),
  keywords: z.array(z.string()).default([]).describe('keywords: the words that hand the conversation to a person'),
  count: nullable(z.number().int()).describe('consecutive_failures: failed runs in a row'),
});

export const AiAgent = component(
  'AiAgent',
  z.object({
    id: z.string(),
    name: z.string(),
    type: z.enum(AGENT_TYPES),
    description: nullable(z.string()),
    scope: z.object({
      sources: z.array(z.enum(CHANNELS)).default([]),
      chatapp_instance_ids: z.array(z.string()).default([]).describe('empty: every number'),
      tags: z.array(z.string()).default([]).describe('empty: every contact; otherwise contacts with one of these tags'),
    }),
    behavior: z.object({
      strategy: z.enum(AGENT_STRATEGIES),
      reply_delay_ms: z.number().int().default(0),
      max_replies_per_conversation: nullable(z.number().int()),
      handoff: z.object({
        enabled: z.boolean().default(false),
        assign_to: nullable(Ref),
        triggers: z.array(HandoffTrigger).default([]),
      }),
      business_hours: nullable(
        z.object({
          timezone: nullable(z.string()).describe("null: the organization's timezone"),
          days: nullable(z.record(z.string(), z.array(z.array(z.string())))).describe('null: Monday–Friday 09:00–18:00'),
        }),
      ).describe("outside_business_hours agents answer outside these; null: Monday–Friday 09:00–18:00 in the organization's timezone"),
    }),
    ai_config: z.object({
      instructions: z.string(),
      model: nullable(z.string()).describe("null: the provider's default model"),
      temperature: z.number().default(0),
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
    id: z.string(),
    agent: z.object({ id: z.string(), name: z.string(), type: z.enum(AGENT_TYPES) }).describe('as it was when the run started'),
    conversation_id: nullable(z.string()),
    trigger_event: nullable(z.string()),
    status: z.enum(RUN_STATUSES),
    skip_reason: nullable(z.enum(SKIP_REASONS)),
    error_message: nullable(z.string()),
    messages_sent: z
      .array(z.object({ message_id: z.string(), content: z.string(), sent_at: timestamp, delay_ms: z.number().int().default(0) }))
      .default([]),
    handoff: nullable(z.object({ triggered: z.boolean().default(false), reason: z.string().default(''), summary: z.string().default('') })),
    usage: nullable(z.object({ tokens: z.number().int().default(0), cost_cents: z.number().int().default(0) })),
    model: nullable(z.string()),
    duration_ms: nullable(z.number().int()),
    started_at: nullable(timestamp),
    completed_at: nullable(timestamp),
  }),
  'One time an agent acted on (or skipped) an inbound message.',
);
