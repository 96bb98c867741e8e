import { bodyRequired, type RouteDefinition } from '../http/route';
import { COMMON_COMPONENTS } from './common-components';
import { ExampleBuilder } from './examples';
import { createSchemaWriter, type JsonSchema, type SchemaWriter } from './json-schema';
import { linksOf } from './links';
import { RESPONSE_HEADERS, responses } from './responses';
import { webhookEntries } from './webhooks';

type Example = (schema: JsonSchema) => unknown;

/** What each tag groups, for the reference page and generated clients. */
const TAGS: Record<string, string> = {
  Contacts: 'People the organization sells to and talks with: their tags, notes and deals.',
  Companies: 'Organizations that contacts and deals belong to.',
  Deals: 'Opportunities moving through a funnel: move, win, lose, reopen, transfer, notes.',
  Funnels: 'Deal pipelines and their stages.',
  Tasks: 'To-dos of the members, linked to a contact, a deal or a company.',
  Conversations: 'Chats with contacts on every channel: assignment and closing.',
  Messages: 'Sending messages and reading one.',
  'Chat instances': 'The connected numbers and their templates.',
  Broadcasts: 'Mass sends from chat numbers: audience, schedule, launch, pause, recipients.',
  'AI agents': 'Agents that answer conversations, and their runs.',
  Webhooks: 'Subscriptions to events, signed deliveries, their log and redelivery.',
  Account: 'The organization, its members, tags and custom fields, and the calling key.',
  'Message credits (discontinued)': 'Discontinued: every operation answers 410 FEATURE_DISCONTINUED.',
};

function parameters(route: RouteDefinition, writer: SchemaWriter): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = writer.toSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
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
  if (route.idempotent)
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', maxLength: 255 },
      description: 'A UUID v4; a repeat within 24 h returns the stored response',
    });
  return out;
}

function operation(route: RouteDefinition, routes: RouteDefinition[], writer: SchemaWriter, example: Example): JsonSchema {
  const scopeText = route.scope ? `Scope: \`${route.scope}\`.` : 'Any valid API key.';
  const answers = responses(route, writer, example) as Record<string, JsonSchema>;
  const links = linksOf(route, routes);
  const success = answers[String(route.success.status)];
  if (success && Object.keys(links).length > 0) success.links = links;
  const op: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    description: [route.description, scopeText, route.idempotent ? 'Honours the Idempotency-Key header (24 h).' : '']
      .filter(Boolean)
      .join('\n\n'),
    tags: [route.tag],
    security: [{ bearerAuth: route.scope ? [route.scope] : [] }],
    'x-scope': route.scope,
    parameters: parameters(route, writer),
    responses: answers,
  };
  if (route.body) {
    const schema = writer.toSchema(route.body, 'input');
    op.requestBody = { required: bodyRequired(route), content: { 'application/json': { schema, example: example(schema) } } };
  }
  if (route.deprecated) op.deprecated = true;
  return op;
}

/**
 * The OpenAPI 3.1 document, built from the same route definitions and zod schemas that serve requests: paths with
 * examples, response headers and links, the component schemas with an example each, and the `webhooks` a
 * subscription receives.
 */
export function buildOpenApiDocument(routes: RouteDefinition[], baseUrl: string): JsonSchema {
  const writer = createSchemaWriter();
  const registered = writer.registeredComponents();
  const schemas: Record<string, JsonSchema> = { ...COMMON_COMPONENTS, ...registered };
  const builder = new ExampleBuilder(schemas);
  const example: Example = (schema) => builder.build(schema);
  const buildPaths = () => {
    const paths: Record<string, Record<string, JsonSchema>> = {};
    for (const route of routes) {
      paths[route.path] ??= {};
      (paths[route.path] as Record<string, JsonSchema>)[route.method.toLowerCase()] = operation(route, routes, writer, example);
    }
    return paths;
  };
  // Twice: the first pass collects the components zod lifts out of the operations' schemas, which examples resolve.
  buildPaths();
  Object.assign(schemas, writer.extraComponents, registered);
  const paths = buildPaths();
  for (const [name, schema] of Object.entries(schemas)) {
    if (name !== 'Error') schemas[name] = { ...schema, examples: [builder.build(schema, name)] };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'CRM Public API',
      version: 'v1',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        'REST API v1 of the sales-and-messaging CRM. Authenticate with `Authorization: Bearer sk_live_…`. Single records answer `{data, meta: {request_id}}`; lists answer `{data, meta: {total, has_more, next_cursor, request_id}}`; errors answer `{error: {type, code, message, details?}, meta: {request_id}}`. Subscriptions receive the events under `webhooks`, signed with `X-Webhook-Signature`.',
    },
    servers: [{ url: baseUrl, description: 'This deployment (PUBLIC_BASE_URL)' }],
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name, description: TAGS[name] ?? name })),
    paths,
    webhooks: webhookEntries(),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: sk_live_ followed by an opaque string' } },
      schemas,
      headers: RESPONSE_HEADERS,
    },
  };
}
