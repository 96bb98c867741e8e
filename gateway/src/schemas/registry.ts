import { z } from 'zod';

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
export const documentedAs = new WeakMap<z.ZodType, z.ZodType>();

export function documented<S extends z.ZodType>(schema: S, shownAs: z.ZodType): S {
  documentedAs.set(schema, shownAs);
  return schema;
}

/** `T|null`, always present: a service's absent optional becomes null. */
export const nullable = <S extends z.ZodType>(schema: S) => schema.nullable().default(null as never);

export const timestamp = z.string().describe('ISO 8601 in UTC with milliseconds, e.g. 2026-01-31T12:00:00.000Z');

export const Ref = component('Ref', z.object({ id: z.string(), name: z.string() }), 'A reference to another record.');

/** Every list takes limit (1–100, larger values are clamped) and cursor. */
export const pageQuery = {
  limit: z.coerce
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .transform((value) => Math.min(value, 100))
    .optional()
    .describe('1 to 100 (values above 100 are clamped); default 25'),
  cursor: z.string().optional().describe('meta.next_cursor of the previous page; keep the same filters'),
};

export const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const isoQuery = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' });
