import { z } from 'zod';
import { trimmedText } from './common';

export const MAX_STAGES = 30;

const nameSchema = trimmedText(100);
const colorSchema = z.string().regex(/^#[0-9A-Fa-f]{6}$/, 'must be a #RRGGBB color');
const probabilitySchema = z
  .number({ message: 'must be an integer' })
  .int('must be an integer')
  .min(0, 'must be at least 0')
  .max(100, 'must be at most 100');
/** 1-based board position. */
const positionSchema = z
  .number({ message: 'must be an integer' })
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(10_000, 'is too large');

export const stageInput = z.strictObject({
  name: nameSchema,
  color: colorSchema.nullable().optional(),
  probability: probabilitySchema.nullable().optional(),
});

/** POST /v1/funnels (#35): stages in board order. */
export const createFunnelBody = z.strictObject({
  name: nameSchema,
  stages: z.array(stageInput).min(1, 'at least one stage').max(MAX_STAGES, `at most ${MAX_STAGES} stages`),
  is_default: z.boolean().optional(),
});

/**
 * PATCH /v1/funnels/{id} (#37). `is_default` only takes `true` (the previous default loses it); stages are
 * managed by #38–#40, so `stages` is unknown here.
 */
export const updateFunnelBody = z.strictObject({
  name: nameSchema.optional(),
  position: positionSchema.optional(),
  is_default: z.literal(true, { message: 'only true is accepted: make another funnel the default instead' }).optional(),
  is_archived: z.boolean().optional(),
});

/** POST /v1/funnels/{id}/stages (#38): position defaults to last; later stages shift. */
export const createStageBody = stageInput.extend({ position: positionSchema.optional() });

/** PATCH /v1/funnels/{id}/stages/{stageId} (#39). */
export const updateStageBody = z.strictObject({
  name: nameSchema.optional(),
  position: positionSchema.optional(),
  color: colorSchema.nullable().optional(),
  probability: probabilitySchema.nullable().optional(),
});

export type CreateFunnelBody = z.infer<typeof createFunnelBody>;
export type StageInput = z.infer<typeof stageInput>;
