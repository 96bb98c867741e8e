import { z } from 'zod';
import { customFieldsSchema, emailSchema, phoneSchema, tagListSchema, tagSchema, trimmedText } from './common';
import { idOf } from './validation';

export const CONTACT_SOURCES = ['chatapp', 'photoapp', 'socialmsg', 'manual', 'import', 'api'] as const;

const nameSchema = trimmedText(200);

/** POST /v1/contacts. `source` is the closed set of spec §2 (a free value such as "site" is refused). */
export const createContactBody = z.strictObject({
  name: nameSchema,
  email: emailSchema.nullable().optional(),
  phone: phoneSchema.nullable().optional(),
  tags: tagListSchema.optional(),
  source: z.enum(CONTACT_SOURCES).default('api'),
  company_id: idOf('company').nullable().optional(),
  custom_fields: customFieldsSchema.optional(),
});

/** PATCH /v1/contacts/{id}: any subset; channel ids and counters are read-only and so unknown here. */
export const updateContactBody = z.strictObject({
  name: nameSchema.optional(),
  email: emailSchema.nullable().optional(),
  phone: phoneSchema.nullable().optional(),
  company_id: idOf('company').nullable().optional(),
  tags: tagListSchema.optional(),
  custom_fields: customFieldsSchema.optional(),
  funnel_stage: trimmedText(100).nullable().optional(),
});

/** POST /v1/contacts/{id}/tags */
export const addContactTagsBody = z.strictObject({
  tags: z
    .array(tagSchema)
    .min(1, 'at least one tag')
    .max(50, 'at most 50 tags')
    .transform((tags) => [...new Set(tags)]),
});

export type CreateContactBody = z.infer<typeof createContactBody>;
export type UpdateContactBody = z.infer<typeof updateContactBody>;
