import type { IdKind } from '@crm/shared/core';
import { documented, idOf } from '@crm/shared/schemas';
import { z } from 'zod';
import { CURSOR_PATTERN } from '../http/cursor';

/** Component schemas of the OpenAPI document, by name. */
export const components = z.registry<{ id: string; description?: string }>();

export function component<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  components.add(schema, description ? { id, description } : { id });
  return schema;
}

/**
 * Schemas the gateway checks loosely but documents by a stricter one: a batch's items are validated one by one by
 * the service (a bad item fails alone), yet the description shows what an item holds.
 */
export const shownAsSchemas = new WeakMap<z.ZodType, z.ZodType>();

export function documentedAs<S extends z.ZodType>(schema: S, shownAs: z.ZodType): S {
  shownAsSchemas.set(schema, shownAs);
  return schema;
}

/** `T|null`, always present: a service's absent optional becomes null. */
export const nullable = <S extends z.ZodType>(schema: S) => schema.nullable().default(null as never);

export const timestamp = z.iso.datetime().describe('ISO 8601 in UTC with milliseconds, e.g. 2026-01-31T12:00:00.000Z');

/** A count of records or events: an integer, never negative. */
export const count = z.number().int().min(0);

/** A record's id in an answer: its kind's prefix pattern in the document (ids are checked on the way out too). */
export const id = (kind: IdKind) => idOf(kind);

/** Any record's id, where the kind varies (webhook payloads). */
const ANY_ID = z.string().regex(/^[a-z]+_[0-9A-Za-z]{22}$/);

export const Ref = component('Ref', z.object({ id: ANY_ID, name: z.string() }), 'A reference to another record.');

/** `{id, name}` of a record of one kind. */
const refTo = (kind: IdKind, name: string, description: string) =>
  component(name, z.object({ id: idOf(kind), name: z.string() }), description);

export const MemberRef = refTo('member', 'MemberRef', 'A member of the organization: {id, name}.');
export const ContactRef = refTo('contact', 'ContactRef', 'A contact: {id, name}.');
export const CompanyRef = refTo('company', 'CompanyRef', 'A company: {id, name}.');
export const FunnelRef = refTo('funnel', 'FunnelRef', 'A funnel: {id, name}.');
export const StageRef = refTo('stage', 'StageRef', 'A stage of a funnel: {id, name}.');
export const AiAgentRef = refTo('aiAgent', 'AiAgentRef', 'An AI agent: {id, name}.');

/** A custom field's value: text, a number, a boolean, null, or a list of texts (a multiselect). */
export const customFieldValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]);

const valuesByKey = z.record(z.string(), customFieldValue);

/**
 * What a transform gives, stated again, so that the document types the answer (a transform's output is unknown to JSON
 * Schema): `orEmpty(schema, empty)` answers `empty` for null or absent.
 */
export const orEmpty = <T>(schema: z.ZodType<T>, empty: T) => z.preprocess((value) => value ?? empty, schema).default(empty as never);

/** Custom field values by key, as stored. */
export const customFieldValues = orEmpty(valuesByKey, {}).describe(
  'by the key of a custom field of the organization (GET /v1/custom-fields)',
);

/** The largest page; a larger `limit` is clamped to it (catalogue: the delivery log is called with limit=200). */
export const MAX_PAGE = 100;

export const DEFAULT_PAGE = 25;

/** Every list takes limit (1–100, larger values are clamped) and cursor. */
export const pageQuery = {
  limit: documented(
    z.coerce
      .number({ message: 'must be an integer' })
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .transform((value) => Math.min(value, MAX_PAGE)),
    // The document states the page size a client gets; that more is clamped rather than refused is in the description.
    { maximum: MAX_PAGE, default: DEFAULT_PAGE },
  )
    .optional()
    .describe(`1 to ${MAX_PAGE}, default 25; a larger value is clamped to ${MAX_PAGE}, not refused`),
  // The format, so that clients and fuzzers see it; its signature, expiry and list are checked too (INVALID_CURSOR).
  cursor: documented(z.string(), { minLength: 1, pattern: CURSOR_PATTERN })
    .optional()
    .describe('meta.next_cursor of the previous page, as it was issued (signed, valid for an hour); keep the same filters'),
};

export const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const isoQuery = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' });
