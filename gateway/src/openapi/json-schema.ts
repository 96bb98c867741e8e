import { jsonSchemaHints } from '@crm/shared/schemas';
import { z } from 'zod';
import { components, shownAsSchemas } from '../schemas/registry';

export type JsonSchema = Record<string, unknown>;

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const uri = (id: string) => `#/components/schemas/${id}`;

/** The rules zod's JSON Schema does not show (an id's prefix, a check after a trim…): see `documented`. */
function override(context: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const hints = jsonSchemaHints.get(context.zodSchema as z.ZodType);
  if (hints) Object.assign(context.jsonSchema, hints);
  // A schema checked loosely but documented by a stricter one (a batch's items): the stricter one's JSON Schema.
  const shownAs = shownAsSchemas.get(context.zodSchema as z.ZodType);
  if (shownAs) {
    const { $schema: _s, ...shown } = z.toJSONSchema(shownAs, { io: 'input', unrepresentable: 'any', override }) as JsonSchema;
    Object.assign(context.jsonSchema, shown);
  }
}

/**
 * Turns zod schemas into JSON Schema, with registered components referenced rather than inlined. Schemas that zod
 * lifts into `$defs` (recursive or reused ones) are collected as extra components of the document.
 */
export function createSchemaWriter() {
  const extraComponents: Record<string, JsonSchema> = {};
  return {
    extraComponents,
    toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
      const {
        $schema: _s,
        $defs,
        ...rest
      } = z.toJSONSchema(schema, {
        io,
        metadata: components,
        unrepresentable: 'any',
        override,
      }) as JsonSchema;
      if ($defs) Object.assign(extraComponents, $defs as Record<string, JsonSchema>);
      return JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
    },
    /** Every registered component, as output (what responses carry). */
    registeredComponents(): Record<string, JsonSchema> {
      const registered = z.toJSONSchema(components, { uri, io: 'output', unrepresentable: 'any', override }).schemas as Record<
        string,
        JsonSchema
      >;
      return Object.fromEntries(Object.entries(registered).map(([name, { $schema: _s, $id: _i, ...schema }]) => [name, schema]));
    },
  };
}

export type SchemaWriter = ReturnType<typeof createSchemaWriter>;
