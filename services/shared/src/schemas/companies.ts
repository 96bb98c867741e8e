import { z } from 'zod';
import { customFieldsSchema, emailSchema, externalIdSchema, phoneSchema, tagListSchema, trimmedText, withNaturalKey } from './common';
import { idOf } from './validation';

/** The five size bands of spec §2. */
export const COMPANY_SIZES = ['1-10', '11-50', '51-200', '201-500', '500+'] as const;

const nameSchema = trimmedText(200);
const shortText = trimmedText(200);

const companyFields = {
  email: emailSchema.nullable().optional(),
  phone: phoneSchema.nullable().optional(),
  website: trimmedText(500).nullable().optional(),
  sector: shortText.nullable().optional(),
  size: z.enum(COMPANY_SIZES).nullable().optional(),
  city: shortText.nullable().optional(),
  state: shortText.nullable().optional(),
  assigned_to: idOf('member').nullable().optional(),
  tags: tagListSchema.optional(),
  custom_fields: customFieldsSchema.optional(),
  external_id: externalIdSchema.nullable().optional(),
};

/** POST /v1/companies */
export const createCompanyBody = z.strictObject({ name: nameSchema, ...companyFields });

/** PATCH /v1/companies/{id}: any subset; null clears a field (assigned_to: null unassigns). The counters are read-only. */
export const updateCompanyBody = z.strictObject({ name: nameSchema.optional(), ...companyFields });

/**
 * One item of POST /v1/companies/batch/upsert: matched by external_id, then email, then phone (at least one is
 * required); the fields sent are written as PATCH writes them, and `name` is required only when the item creates.
 */
export const upsertCompanyItem = withNaturalKey(
  z.strictObject({
    ...companyFields,
    name: nameSchema.optional(),
    email: emailSchema.optional(),
    phone: phoneSchema.optional(),
    external_id: externalIdSchema.optional(),
  }),
);

export type CreateCompanyBody = z.infer<typeof createCompanyBody>;
export type UpdateCompanyBody = z.infer<typeof updateCompanyBody>;
export type UpsertCompanyItem = z.infer<typeof upsertCompanyItem>;
