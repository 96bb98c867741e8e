import { z } from 'zod';
import { customFieldsSchema, emailSchema, externalIdSchema, phoneSchema, tagListSchema } from './common';
import { idOf } from './validation';

export const CONTACT_SOURCES = ['chatapp', 'photoapp', 'socialmsg', 'manual', 'import', 'api'] as const;

const nameSchema = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

/** POST /v1/contacts. `source` is the closed set of spec §2 (a free value such as "site" is refused). */
export const createContactBody = z.strictObject({
  name: nameSchema,
  email: emailSchema.nullable().optional(),
  phone: phoneSchema.nullable().optional(),
  tags: tagListSchema.optional(),
  source: z.enum(CONTACT_SOURCES).default('api'),
  company_id: idOf('company').nullable().optional(),
  custom_fields: customFieldsSchema.optional(),
  external_id: externalIdSchema.nullable().optional(),
});

/** PATCH /v1/contacts/{id}: any subset; channel ids and counters are read-only and so unknown here. */
export const updateContactBody = z.strictObject({
  name: nameSchema.optional(),
  email: emailSchema.nullable().optional(),
  phone: phoneSchema.nullable().optional(),
  company_id: idOf('company').nullable().optional(),
  tags: tagListSchema.optional(),
  custom_fields: customFieldsSchema.optional(),
  funnel_stage: z.string().trim().min(1).max(100).nullable().optional(),
  external_id: externalIdSchema.nullable().optional(),
});

/**
 * One item of POST /v1/contacts/batch/upsert: matched by external_id, then email, then phone (at least one is
 * required). The fields sent are written as PATCH writes them; `name` is required only when the item creates, and
 * `source` is used only then.
 */
export const upsertContactItem = z
  .strictObject({
    name: nameSchema.optional(),
    email: emailSchema.optional(),
    phone: phoneSchema.optional(),
    external_id: externalIdSchema.optional(),
    tags: tagListSchema.optional(),
    source: z.enum(CONTACT_SOURCES).default('api'),
    company_id: idOf('company').nullable().optional(),
    custom_fields: customFieldsSchema.optional(),
  })
  .refine((item) => item.external_id !== undefined || item.email !== undefined || item.phone !== undefined, {
    message: 'each item needs external_id, email or phone to be matched by',
  });

/** POST /v1/contacts/{id}/tags */
export const addContactTagsBody = z.strictObject({
  tags: tagListSchema.pipe(z.array(z.string()).min(1, 'at least one tag').max(50, 'at most 50 tags')),
});

export type CreateContactBody = z.infer<typeof createContactBody>;
export type UpdateContactBody = z.infer<typeof updateContactBody>;
export type UpsertContactItem = z.infer<typeof upsertContactItem>;
