import { z } from 'zod';
import {
  customFieldsSchema,
  emailSchema,
  externalIdSchema,
  phoneSchema,
  tagListSchema,
  tagSchema,
  trimmedText,
  withNaturalKey,
} from './common';
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
  funnel_stage: trimmedText(100).nullable().optional(),
  external_id: externalIdSchema.nullable().optional(),
});

/**
 * One item of POST /v1/contacts/batch/upsert: matched by external_id, then email, then phone (at least one is
 * required). The fields sent are written as PATCH writes them; `name` is required only when the item creates, and
 * `source` is used only then.
 */
export const upsertContactItem = withNaturalKey(
  z.strictObject({
    name: nameSchema.optional(),
    email: emailSchema.optional(),
    phone: phoneSchema.optional(),
    external_id: externalIdSchema.optional(),
    tags: tagListSchema.optional(),
    source: z.enum(CONTACT_SOURCES).default('api'),
    company_id: idOf('company').nullable().optional(),
    custom_fields: customFieldsSchema.optional(),
  }),
);

/** POST /v1/contacts/{id}/tags */
export const addContactTagsBody = z.strictObject({
  tags: z
    .array(tagSchema)
    .min(1, 'at least one tag')
    .max(50, 'at most 50 tags')
    .transform((tags) => [...new Set(tags)]),
});

/** The most contacts one merge folds in: each moves its records in the merge's one transaction. */
export const MAX_MERGED_CONTACTS = 20;

/** POST /v1/contacts/{id}/merge: the contacts to fold into the one of the path (docs/contact-merge.md). */
export const mergeContactsBody = z.strictObject({
  contact_ids: z
    .array(idOf('contact'))
    .min(1, 'at least one contact')
    .max(MAX_MERGED_CONTACTS, `at most ${MAX_MERGED_CONTACTS} contacts`)
    .transform((ids) => [...new Set(ids)])
    .describe('The contacts to fold in, in order of precedence: a field the contact merged into lacks is taken from the first that has it'),
});

export type MergeContactsBody = z.infer<typeof mergeContactsBody>;
export type CreateContactBody = z.infer<typeof createContactBody>;
export type UpdateContactBody = z.infer<typeof updateContactBody>;
export type UpsertContactItem = z.infer<typeof upsertContactItem>;
