import { z } from 'zod';
import { customFieldsSchema, isoDateTimeSchema, tagListSchema, trimmedText } from './common';
import { idOf } from './validation';

export const DEAL_STATUSES = ['open', 'won', 'lost'] as const;
export const DEAL_SORTS = ['created_at', 'updated_at', 'value', 'expected_close_date'] as const;

const titleSchema = trimmedText(200);
const descriptionSchema = z.string().max(10_000, 'must be at most 10000 characters');
const valueSchema = z.number({ message: 'must be a number' }).finite().min(0, 'must be at least 0').max(1e15, 'is too large');
const probabilitySchema = z
  .number({ message: 'must be an integer' })
  .int('must be an integer')
  .min(0, 'must be at least 0')
  .max(100, 'must be at most 100');
/** ISO 8601: a calendar date (2026-03-31) or a date-time with offset. */
const closeDateSchema = z.union([z.iso.date(), isoDateTimeSchema], { message: 'must be an ISO 8601 date or date-time' });
const contactIdsSchema = z
  .array(idOf('contact'))
  .max(100, 'at most 100 contacts')
  .transform((ids) => [...new Set(ids)]);

/** POST /v1/deals (#21). Status is always `open` on create. */
export const createDealBody = z.strictObject({
  title: titleSchema,
  funnel_id: idOf('funnel').optional(),
  stage_id: idOf('stage').optional(),
  value: valueSchema.default(0),
  contact_ids: contactIdsSchema.optional(),
  company_id: idOf('company').nullable().optional(),
  description: descriptionSchema.nullable().optional(),
  assigned_to: idOf('member').nullable().optional(),
  expected_close_date: closeDateSchema.nullable().optional(),
  probability: probabilitySchema.nullable().optional(),
  tags: tagListSchema.optional(),
  custom_fields: customFieldsSchema.optional(),
});

/**
 * PATCH /v1/deals/{id} (#23, spec §4 rules 1–3). `stage`, `funnel`, `status` (and their ids) are not accepted:
 * they change only through the action routes, so the strict object answers UNKNOWN_FIELDS for them.
 */
export const updateDealBody = z.strictObject({
  contact_ids: contactIdsSchema.optional(),
  company_id: idOf('company').nullable().optional(),
  title: titleSchema.optional(),
  description: descriptionSchema.nullable().optional(),
  value: valueSchema.optional(),
  assigned_to: idOf('member').nullable().optional(),
  expected_close_date: closeDateSchema.nullable().optional(),
  probability: probabilitySchema.nullable().optional(),
  tags: tagListSchema.optional(),
  custom_fields: customFieldsSchema.optional(),
});

/** POST /v1/deals/{id}/move (#29). */
export const moveDealBody = z.strictObject({ stage_id: idOf('stage') });

/** POST /v1/deals/{id}/lose (#31). */
export const loseDealBody = z.strictObject({
  lost_reason: trimmedText(500, 0).nullable().optional(),
});

/** POST /v1/deals/{id}/win and /reopen (#30, #32): no fields. */
export const emptyActionBody = z.strictObject({});

/** POST /v1/deals/{id}/transfer (#33). */
export const transferDealBody = z.strictObject({ funnel_id: idOf('funnel'), stage_id: idOf('stage').optional() });

export type CreateDealBody = z.infer<typeof createDealBody>;
export type UpdateDealBody = z.infer<typeof updateDealBody>;
