import { z } from 'zod';
import { isoDateTimeSchema, tagSchema, trimmedText } from './common';
import { CHANNELS } from './messaging';
import { documented, fieldIs, idOf, present } from './validation';

/** AI agents (catalogue §3 AI agent). Request bodies are camelCase; responses snake_case. */
export const AGENT_TYPES = ['sales', 'support', 'custom'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

export const AGENT_STRATEGIES = ['always', 'when_unassigned', 'outside_business_hours'] as const;
export type AgentStrategy = (typeof AGENT_STRATEGIES)[number];

export const RUN_STATUSES = ['running', 'completed', 'skipped', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Why a run did not answer (README of services/agents). */
export const SKIP_REASONS = [
  'outside_scope',
  'conversation_assigned',
  'inside_business_hours',
  'reply_cap_reached',
  'another_agent_answering',
  'handed_off',
  'superseded',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const HANDOFF_TRIGGER_TYPES = ['keywords', 'model_request', 'consecutive_failures'] as const;

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** The longest wait before an answer (catalogue: replyDelayMs 0–60000). */
export const MAX_REPLY_DELAY_MS = 60_000;

const text = (max: number) => trimmedText(max);

/** A time of day, HH:MM (24:00 ends a day). */
export const HHMM = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const interval = documented(
  z
    .tuple([z.string().regex(HHMM, 'must be HH:MM'), z.string().regex(HHMM, 'must be HH:MM')])
    .refine(([from, to]) => from < to, 'the end must be later than the start'),
  // JSON Schema cannot compare two values.
  { description: '[from, to], to later than from' },
);

const isTimeZone = (value: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
};

/**
 * When `outside_business_hours` agents stay quiet. Absent: Monday to Friday 09:00–18:00 in the organization's
 * timezone. A day that is not listed is closed all day.
 */
export const businessHoursSchema = z.strictObject({
  // Checked against the runtime's time zone database, which JSON Schema cannot list.
  timezone: documented(z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Lisbon'), {
    description: 'An IANA time zone such as Europe/Lisbon',
  }).optional(),
  days: z
    .strictObject(Object.fromEntries(WEEKDAYS.map((day) => [day, z.array(interval).max(6, 'at most 6 intervals').optional()])))
    .optional(),
});

const handoffTrigger = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('keywords'), keywords: z.array(text(100)).min(1, 'must name at least one keyword').max(50) }),
  z.strictObject({ type: z.literal('model_request') }),
  z.strictObject({ type: z.literal('consecutive_failures'), count: z.number().int().min(1).max(10) }),
]);

const handoffSchema = documented(
  z
    .strictObject({
      enabled: z.boolean(),
      assignTo: idOf('member').nullable().optional(),
      triggers: z.array(handoffTrigger).max(10, 'at most 10 triggers').optional(),
    })
    .superRefine((handoff, ctx) => {
      if (!handoff.enabled) return;
      if (!handoff.assignTo) ctx.addIssue({ code: 'custom', path: ['assignTo'], message: 'is required when handoff is enabled' });
      if (!handoff.triggers?.length)
        ctx.addIssue({ code: 'custom', path: ['triggers'], message: 'must name at least one trigger when handoff is enabled' });
    }),
  {
    allOf: [
      {
        if: fieldIs('enabled', true),
        then: { required: ['assignTo', 'triggers'], properties: { assignTo: { type: 'string' }, triggers: { minItems: 1 } } },
      },
    ],
  },
);

/** `scope.channels` does not exist (spec §4): like any unknown field it answers UNKNOWN_FIELDS. */
const scopeSchema = documented(
  z
    .strictObject({
      sources: z
        .array(z.enum(CHANNELS))
        .min(1, 'must name at least one source')
        .transform((sources) => [...new Set(sources)]),
      chatappInstanceIds: z
        .array(idOf('chatInstance'))
        .max(50, 'at most 50 numbers')
        .transform((ids) => [...new Set(ids)])
        .optional(),
      tags: z
        .array(tagSchema)
        .max(50, 'at most 50 tags')
        .transform((tags) => [...new Set(tags)])
        .optional(),
    })
    .superRefine((scope, ctx) => {
      if (scope.chatappInstanceIds?.length && !scope.sources.includes('chatapp'))
        ctx.addIssue({ code: 'custom', path: ['chatappInstanceIds'], message: 'needs chatapp among the sources' });
    }),
  {
    allOf: [
      {
        if: { ...present('chatappInstanceIds'), properties: { chatappInstanceIds: { minItems: 1 } } },
        then: { properties: { sources: { contains: { const: 'chatapp' } } } },
      },
    ],
  },
);

const behaviorSchema = z.strictObject({
  strategy: z.enum(AGENT_STRATEGIES),
  replyDelayMs: z.number().int('must be an integer').min(0).max(MAX_REPLY_DELAY_MS).optional(),
  maxRepliesPerConversation: z.number().int('must be an integer').min(1).max(10_000).nullable().optional(),
  handoff: handoffSchema.optional(),
  businessHours: businessHoursSchema.nullable().optional(),
});

const aiConfigSchema = z.strictObject({
  instructions: text(20_000),
  model: trimmedText(100).nullable().optional(),
  temperature: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional(),
});

/** #71, #75, #76: the full AiAgentInput (PUT and PATCH replace the whole agent). */
export const agentInputBody = z.strictObject({
  name: text(200),
  type: z.enum(AGENT_TYPES),
  description: trimmedText(2_000, 0).nullable().optional(),
  scope: scopeSchema,
  behavior: behaviorSchema,
  aiConfig: aiConfigSchema,
});

export type AgentInput = z.infer<typeof agentInputBody>;
export type BusinessHoursInput = z.infer<typeof businessHoursSchema>;

export const agentListQuery = {
  type: z.enum(AGENT_TYPES).optional(),
};

export const runListQuery = {
  agent_id: idOf('aiAgent').optional(),
  conversation_id: idOf('conversation').optional(),
  status: z.enum(RUN_STATUSES).optional(),
  started_after: isoDateTimeSchema.optional(),
};
