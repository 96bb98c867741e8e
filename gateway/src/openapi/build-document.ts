import { ERROR_CATALOGUE, type ErrorCode } from '@crm/shared';
import { z } from 'zod';
import type { RouteDefinition } from '../http/route';
import { components } from '../schemas/registry';

type JsonSchema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const uri = (id: string) => `#/components/schemas/${id}`;
const AUTH_ERRORS: ErrorCode[] = ['MISSING_API_KEY', 'INVALID_API_KEY_FORMAT', 'INVALID_API_KEY', 'RATE_LIMITED', 'INTERNAL_ERROR'];

/** JSON Schema of one zod schema, with registered components referenced rather than inlined. */
function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _s, $defs, ...rest } = z.toJSONSchema(schema, { io, metadata: components, unrepresentable: 'any' }) as JsonSchema;
  if ($defs) Object.assign(extraComponents, $defs as Record<string, JsonSchema>);
  return JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
}
const extraComponents: Record<string, JsonSchema> = {};

function parameters(route: RouteDefinition): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = toSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      const { description, ...propertySchema } = property;
      out.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        schema: propertySchema,
        ...(description ? { description } : {}),
      });
    }
  }
  return out;
}

function responses(route: RouteDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const success = route.success;
  if (success.kind === 'none') out['204'] = { description: 'No content' };
  else {
    const data =
      success.kind === 'list' ? { type: 'array', items: toSchema(success.schema, 'output') } : toSchema(success.schema, 'output');
    out[String(success.status)] = {
      description: success.kind === 'list' ? 'A page of records' : 'The record',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['data', 'meta'],
            properties: { data, meta: ref(success.kind === 'list' ? 'ListMeta' : 'Meta') },
          },
        },
      },
    };
  }
  const codes = [...AUTH_ERRORS, ...(route.scope ? (['INSUFFICIENT_SCOPES'] as ErrorCode[]) : []), ...(route.errors ?? [])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOGUE[code].http;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    // MIXED_PROVIDERS and MISSING_CLOUD_TEMPLATE are sent as 422; 400 stays declared for compatibility.
    if (code === 'MIXED_PROVIDERS' || code === 'MISSING_CLOUD_TEMPLATE') byStatus.set(400, [...(byStatus.get(400) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = { description: `Error: ${list.join(', ')}`, content: { 'application/json': { schema: ref('Error') } } };
  }
  return out;
}

function operation(route: RouteDefinition): JsonSchema {
  const scopeText = route.scope ? `Scope: \`${route.scope}\`.` : 'Any valid API key.';
  const op: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    description: [route.description, scopeText, route.idempotent ? 'Honours the Idempotency-Key header (24 h).' : '']
      .filter(Boolean)
      .join('\n\n'),
    tags: [route.tag],
    security: [{ bearerAuth: route.scope ? [route.scope] : [] }],
    'x-scope': route.scope,
    parameters: [
      ...parameters(route),
      ...(route.idempotent
        ? [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: { type: 'string', maxLength: 255 },
              description: 'A UUID v4; a repeat within 24 h returns the stored response',
            },
          ]
        : []),
    ],
    responses: responses(route),
  };
  if (route.body)
    op.requestBody = { required: route.bodyOptional !== true, content: { 'application/json': { schema: toSchema(route.body, 'input') } } };
  if (route.deprecated) op.deprecated = true;
  return op;
}

const commonComponents: Record<string, JsonSchema> = {
  Meta: { type: 'object', required: ['request_id'], properties: { request_id: { type: 'string' } } },
  ListMeta: {
    type: 'object',
    required: ['total', 'has_more', 'request_id'],
    properties: {
      total: { type: 'integer', description: "Approximate count of the organization's records without filters" },
      has_more: { type: 'boolean' },
      next_cursor: { type: 'string', description: 'Omitted on the last page' },
      request_id: { type: 'string' },
    },
  },
  Error: {
    type: 'object',
    required: ['error', 'meta'],
    properties: {
      error: {
        type: 'object',
        required: ['type', 'code', 'message'],
        properties: {
          type: { type: 'string' },
          code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
          message: { type: 'string' },
          details: { type: 'object', additionalProperties: true },
          required_scopes: { type: 'array', items: { type: 'string' } },
          missing_scopes: { type: 'array', items: { type: 'string' } },
          your_scopes: { type: 'array', items: { type: 'string' } },
        },
      },
      meta: { $ref: '#/components/schemas/Meta' },
    },
  },
};

/** The OpenAPI 3.1 document, built from the same route definitions and zod schemas that serve requests. */
export function buildOpenApiDocument(routes: RouteDefinition[], baseUrl?: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, JsonSchema>)[route.method.toLowerCase()] = operation(route);
  }
  const registered = z.toJSONSchema(components, { uri, io: 'output', unrepresentable: 'any' }).schemas as Record<string, JsonSchema>;
  const schemas = Object.fromEntries(Object.entries(registered).map(([name, { $schema: _s, $id: _i, ...schema }]) => [name, schema]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'CRM Public API',
      version: 'v1',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        'REST API v1 of the sales-and-messaging CRM. Authenticate with `Authorization: Bearer sk_live_…`. Single records answer `{data, meta: {request_id}}`; lists answer `{data, meta: {total, has_more, next_cursor, request_id}}`; errors answer `{error: {type, code, message, details?}, meta: {request_id}}`.',
    },
    servers: [{ url: baseUrl ?? '/' }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: sk_live_ followed by an opaque string' } },
      schemas: { ...commonComponents, ...extraComponents, ...schemas },
    },
  };
}
