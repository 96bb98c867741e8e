import { z } from 'zod';
import { documented, present } from './validation';

export const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * Text stored trimmed: at most `max` characters as sent, and at least `min` once trimmed (JSON Schema: maxLength, and
 * a pattern asking for that many characters that are not white space).
 */
export function trimmedText(max: number, min = 1) {
  const schema = z
    .string()
    .max(max, `must be at most ${max} characters`)
    .trim()
    .min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`);
  if (min === 0) return schema;
  return documented(schema, { pattern: min === 1 ? '\\S' : `\\S[\\s\\S]{${min - 2},}\\S` });
}

export const tagSchema = trimmedText(50);

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

const DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * What `format: email` also means (RFC 5321) and the pattern does not say: a local part of at most 64 characters, and
 * domain labels of 1–63 characters that neither start nor end with a hyphen.
 */
const withinMailboxLimits = (email: string): boolean => {
  const at = email.lastIndexOf('@');
  return (
    at <= 64 &&
    email
      .slice(at + 1)
      .split('.')
      .every((label) => DOMAIN_LABEL.test(label))
  );
};

/** Stored lower-cased; not trimmed, so that the document's format and pattern are the whole rule. */
export const emailSchema = z
  .email('must be a valid e-mail address')
  .max(254, 'must be at most 254 characters')
  .refine(withinMailboxLimits, 'must be a valid e-mail address')
  .transform((email) => email.toLowerCase());

export const phoneSchema = z.string().regex(E164, 'must be an E.164 phone number such as +14155550123');

/** The integrator's own id of a record (a shop, ERP or form id), unique per organization. */
export const externalIdSchema = trimmedText(200);

/**
 * An item of a batch upsert: matched by external_id, then email, then phone, so it must carry at least one of them
 * (JSON Schema: anyOf the three present).
 */
export const withNaturalKey = <S extends z.ZodObject>(item: S) =>
  documented(
    item.refine((value) => ['external_id', 'email', 'phone'].some((key) => (value as Record<string, unknown>)[key] !== undefined), {
      message: 'each item needs external_id, email or phone to be matched by',
    }),
    { anyOf: [present('external_id'), present('email'), present('phone')] },
  );

const FIRST_INSTANT = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An ISO 8601 date-time with any offset, taken as the instant it names and kept in UTC with milliseconds (the form
 * every answer uses: a value stored as sent, `…-05:00`, broke the answers that echo it). An offset may carry a date
 * past year 9999 or before year 0000 in UTC, which the answers' form cannot write: refused.
 */
export const isoDateTimeSchema = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time' })
  .refine((value) => Date.parse(value) >= FIRST_INSTANT && Date.parse(value) <= LAST_INSTANT, 'must fall in the years 0000 to 9999 in UTC')
  .transform((value) => new Date(value).toISOString());
