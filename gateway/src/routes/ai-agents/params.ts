import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';

export const agentIdParams = z.object({ id: idOf('aiAgent') });
export const runIdParams = z.object({ runId: idOf('agentRun') });

/** Errors of a body that is a full AiAgentInput (#71, #75, #76). */
export const AGENT_BODY_ERRORS = [
  'INVALID_JSON',
  'UNKNOWN_FIELDS',
  'VALIDATION_ERROR',
  'INVALID_ID',
  'INVALID_REFERENCE',
  'PLAN_RESTRICTION',
] as const;

export const AGENT_INPUT_DESCRIPTION = [
  'The body is the full AiAgentInput in camelCase: name, type, scope {sources (non-empty), chatappInstanceIds (empty: every number), tags}, behavior {strategy, replyDelayMs 0–60000 (default 3000), maxRepliesPerConversation, handoff {enabled, assignTo, triggers[]}, businessHours}, aiConfig {instructions, model, temperature 0–1}.',
  'scope.channels does not exist (UNKNOWN_FIELDS). Numbers, tags and the handoff assignee must exist in the organization (INVALID_REFERENCE).',
  'Handoff triggers: {type: "keywords", keywords: [...]}, {type: "model_request"}, {type: "consecutive_failures", count: 1–10}.',
  'businessHours (for outside_business_hours): {timezone?, days?: {mon: [["09:00","18:00"]], …}}; absent: Monday–Friday 09:00–18:00 in the organization timezone.',
  'Plans: AI agents need starter or above (PLAN_RESTRICTION).',
].join('\n\n');
