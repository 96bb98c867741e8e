import { z } from 'zod';
import { AppError } from '../errors/app-error';
import { idPattern, isId, type IdKind } from '../ids';

/** Marks a zod issue that must answer INVALID_ID instead of VALIDATION_ERROR. */
const INVALID_ID_MARK = 'INVALID_ID';

/**
 * JSON Schema keywords that state, in the OpenAPI document, a rule its zod form does not show: a refine (an id's
 * prefix), a check after a trim, a rule between fields. The document's writer merges them into the schema's JSON
 * Schema, so the rule and its documentation stay side by side. Rules JSON Schema cannot express at all are said in
 * a `description` (and listed in the contract fuzz's exceptions, test/contract/hooks.py).
 */
export const jsonSchemaHints = new WeakMap<z.ZodType, Record<string, unknown>>();

export function documented<S extends z.ZodType>(schema: S, hints: Record<string, unknown>): S {
  jsonSchemaHints.set(schema, { ...jsonSchemaHints.get(schema), ...hints });
  return schema;
}

/** JSON Schema for rules between fields: all of `fields` are present (declared, so that linters see them). */
export const present = (...fields: string[]) => ({ required: fields, properties: Object.fromEntries(fields.map((field) => [field, {}])) });

/** JSON Schema for rules between fields: none of `fields` may be present. */
export const absent = (...fields: string[]) => {
  const [first, ...more] = fields.map((field) => present(field));
  return { not: more.length === 0 ? first : { anyOf: [first, ...more] } };
};

/** JSON Schema for rules between fields: `field` equals `value` (also when absent: for fields whose default it is). */
export const fieldIs = (field: string, value: unknown) => ({ properties: { [field]: { const: value } } });

/** The kind of every id schema made by idOf: the document links operations by it (links.ts). */
export const idSchemaKinds = new WeakMap<z.ZodType, IdKind>();

/** A string id of one record kind; a malformed one answers INVALID_ID (catalogue §1). */
export const idOf = (kind: IdKind) => {
  const schema = z
    .string()
    .refine((value) => isId(kind, value), { message: `must be a ${kind} id`, params: { app_code: INVALID_ID_MARK } });
  idSchemaKinds.set(schema, kind);
  return documented(schema, { pattern: idPattern(kind) });
};

const fieldPath = (path: PropertyKey[]): string => path.map(String).join('.') || '(body)';

/**
 * Parses a value with a zod schema and turns failures into the public error codes, in this order of precedence:
 * UNKNOWN_FIELDS (fields the route does not accept), INVALID_ID (malformed ids), VALIDATION_ERROR (the rest).
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;

  const unknown = issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' ? issue.keys.map((key) => fieldPath([...issue.path, key])) : [],
  );
  if (unknown.length > 0) {
    throw new AppError('UNKNOWN_FIELDS', `These fields are not accepted here: ${unknown.join(', ')}.`, { fields: unknown });
  }

  const badId = issues.find((issue) => issue.code === 'custom' && issue.params?.app_code === INVALID_ID_MARK);
  if (badId) {
    throw new AppError('INVALID_ID', `${fieldPath(badId.path)} has an invalid id format.`, { field: fieldPath(badId.path) });
  }

  const fields = issues.map((issue) => {
    const entry: { field: string; issue: string; allowed?: unknown[] } = { field: fieldPath(issue.path), issue: issue.message };
    if (issue.code === 'invalid_value') entry.allowed = issue.values as unknown[];
    return entry;
  });
  const summary = fields.map((entry) => `${entry.field}: ${entry.issue}`).join('; ');
  throw new AppError('VALIDATION_ERROR', `Invalid request: ${summary}.`, { fields });
}
