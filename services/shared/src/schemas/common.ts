import { z } from 'zod';

export const E164 = /^\+[1-9]\d{6,14}$/;

export const tagSchema = z.string().trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters');

/** Tags: deduplicated, order kept. */
export const tagListSchema = z
  .array(tagSchema)
  .max(100, 'at most 100 tags')
  .transform((tags) => [...new Set(tags)]);

/**
 * Custom field values. Keys become document keys, so they may not contain "." or start with "$" (the store
 * refuses them); values are scalars or lists of strings.
 */
export const customFieldsSchema = z.record(
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'custom field keys are letters, digits, "_" and "-", starting with a letter or "_"'),
  z.union([z.string().max(10_000), z.number(), z.boolean(), z.null(), z.array(z.string().max(1_000)).max(100)]),
);

export const emailSchema = z.string().trim().toLowerCase().pipe(z.email('must be a valid e-mail address')).pipe(z.string().max(254));

export const phoneSchema = z.string().trim().regex(E164, 'must be an E.164 phone number such as +14155550123');

/** The integrator's own id of a record (a shop, ERP or form id): unique per organization among live records. */
export const externalIdSchema = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const isoDateTimeSchema = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' });
