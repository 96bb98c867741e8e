import type { AppError } from '@crm/shared/core';
import type { ServerResponse } from 'node:http';
import { errorBody } from '../http/envelope';

const MARK = 'request-id-goes-here';

/** Each refusal's envelope as JSON, split where its request id goes. */
const rendered = new WeakMap<AppError, { head: string; tail: string }>();

/**
 * Answers `error` (a refusal made once and reused, e.g. a bulkhead's) in the public envelope with its Retry-After and
 * `headers`, on the raw response (early-admission.ts answers before Fastify has read the request), from JSON
 * rendered the first time: a flood of refusals costs no serialization and no allocation beyond the body.
 */
export function writeRefusal(response: ServerResponse, error: AppError, requestId: string, headers: Record<string, string>): void {
  let parts = rendered.get(error);
  if (!parts) {
    const [head = '', tail = ''] = JSON.stringify(errorBody(error, MARK)).split(JSON.stringify(MARK));
    parts = { head, tail };
    rendered.set(error, parts);
  }
  const body = parts.head + JSON.stringify(requestId) + parts.tail;
  const retryAfter = error.details?.retry_after_seconds;
  response.writeHead(error.httpStatus, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    ...(typeof retryAfter === 'number' ? { 'Retry-After': String(retryAfter) } : {}),
  });
  response.end(body);
}
