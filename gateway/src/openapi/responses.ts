import { ERROR_CATALOGUE, errorType, type ErrorCode } from '@crm/shared/core';
import { idSchemaKinds } from '@crm/shared/schemas';
import type { z } from 'zod';
import type { RouteDefinition } from '../http/route';
import { ref, type JsonSchema, type SchemaWriter } from './json-schema';

/** What any request may meet before or around its operation: the key, the rate, the HTTP limits, a failure of ours. */
const EVERY_OPERATION: ErrorCode[] = [
  'MISSING_API_KEY',
  'INVALID_API_KEY_FORMAT',
  'INVALID_API_KEY',
  'RATE_LIMITED',
  'URI_TOO_LONG',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'INTERNAL_ERROR',
];
/** A route with a body (request-body.ts): not JSON, or not an object, or another media type. */
const BODY_ERRORS: ErrorCode[] = ['INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE'];
/** Methods whose bodies the server reads whether or not the route takes one, so a body over the limit answers 413. */
const READS_BODIES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Any operation may meet a backing service that is down or slow, or a gateway at capacity (README "Deadlines"). */
const UPSTREAM_ERRORS: ErrorCode[] = ['SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT'];
/** Statuses whose answers carry Retry-After (pipeline.ts, error-handler.ts, inflight-limit.ts). */
const RETRY_AFTER_STATUSES = new Set([429, 503, 504]);
export const EXAMPLE_REQUEST_ID = 'req_9Xc2LmQ7wRt4KpZ8vNb3Yd';

/** Headers the gateway sends (app.ts, pipeline.ts, error-handler.ts), as reusable components. */
export const RESPONSE_HEADERS: Record<string, JsonSchema> = {
  RequestId: {
    description: 'The id of this request, also in meta.request_id; quote it to support.',
    required: true,
    schema: { type: 'string', pattern: '^req_[0-9A-Za-z]{22}$' },
    example: EXAMPLE_REQUEST_ID,
  },
  IdempotentReplayed: {
    description: 'Present (true) when the answer is the stored response of an earlier request with the same Idempotency-Key.',
    required: false,
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1',
  },
  RateLimitPolicy: {
    description:
      'The rate limits that apply (draft-ietf-httpapi-ratelimit-headers): `"key"` per API key, `"org"` per organization, ' +
      'each with its quota `q` per window of `w` seconds, counted across all gateway replicas. Absent when limits are off.',
    required: false,
    schema: { type: 'string' },
    example: '"key";q=100;w=1, "org";q=300;w=1',
  },
  RateLimit: {
    description:
      'The most constraining limit now (draft-ietf-httpapi-ratelimit-headers): its policy, the requests `r` left in ' +
      'the window and the seconds `t` until it resets.',
    required: false,
    schema: { type: 'string' },
    example: '"key";r=42;t=1',
  },
};
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
};
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * Whether the gateway validates more than ids on this route: a body, a query, or a path parameter that is not an id
 * (ids answer INVALID_ID), any of which answers VALIDATION_ERROR when it breaks its schema.
 */
function validatesInput(route: RouteDefinition): boolean {
  const pathShape = (route.params as z.ZodObject | undefined)?.shape ?? {};
  return Boolean(route.body || route.query) || Object.values(pathShape).some((schema) => !idSchemaKinds.has(schema as z.ZodType));
}

/** The error codes an operation can answer, grouped by HTTP status. */
export function errorCodesByStatus(route: RouteDefinition): Map<number, ErrorCode[]> {
  const codes = [
    ...EVERY_OPERATION,
    ...(route.body ? BODY_ERRORS : []),
    ...(READS_BODIES.has(route.method) ? (['PAYLOAD_TOO_LARGE'] as ErrorCode[]) : []),
    ...(route.scope ? (['INSUFFICIENT_SCOPES'] as ErrorCode[]) : []),
    ...(route.errors ?? []),
    ...(validatesInput(route) ? (['VALIDATION_ERROR'] as ErrorCode[]) : []),
    ...UPSTREAM_ERRORS,
  ];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOGUE[code].http;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    // MIXED_PROVIDERS and MISSING_CLOUD_TEMPLATE are sent as 422; 400 stays declared for compatibility.
    if (code === 'MIXED_PROVIDERS' || code === 'MISSING_CLOUD_TEMPLATE') byStatus.set(400, [...(byStatus.get(400) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** One example body per code: what the error handler builds from the catalogue's default message. */
function errorExamples(status: number, codes: ErrorCode[]): Record<string, JsonSchema> {
  return Object.fromEntries(
    codes.map((code) => {
      const { message } = ERROR_CATALOGUE[code];
      return [
        code,
        { summary: code, value: { error: { type: errorType(status), code, message }, meta: { request_id: EXAMPLE_REQUEST_ID } } },
      ];
    }),
  );
}

export function responses(route: RouteDefinition, writer: SchemaWriter, example: (schema: JsonSchema) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const success = route.success;
  const successHeaders = {
    'X-Request-Id': header('RequestId'),
    ...(route.idempotent ? { 'Idempotent-Replayed': header('IdempotentReplayed') } : {}),
    ...RATE_LIMIT_HEADERS,
  };
  if (success.kind === 'none') out['204'] = { description: 'No content', headers: successHeaders };
  else if (success.kind !== 'gone') {
    const data =
      success.kind === 'list'
        ? { type: 'array', items: writer.toSchema(success.schema, 'output') }
        : writer.toSchema(success.schema, 'output');
    const schema = {
      type: 'object',
      required: ['data', 'meta'],
      properties: { data, meta: ref(success.kind === 'list' ? 'ListMeta' : 'Meta') },
    };
    out[String(success.status)] = {
      description: success.kind === 'list' ? 'A page of records' : 'The record',
      headers: successHeaders,
      content: { 'application/json': { schema, example: example(schema) } },
    };
  }
  for (const [status, codes] of errorCodesByStatus(route)) {
    out[String(status)] = {
      description: `Error: ${codes.join(', ')}`,
      headers: {
        'X-Request-Id': header('RequestId'),
        ...(RETRY_AFTER_STATUSES.has(status) ? { 'Retry-After': header('RetryAfter') } : {}),
        ...(status === 401 ? {} : RATE_LIMIT_HEADERS),
      },
      content: { 'application/json': { schema: ref('Error'), examples: errorExamples(status, codes) } },
    };
  }
  return out;
}
