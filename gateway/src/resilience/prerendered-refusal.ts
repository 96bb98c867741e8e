import type { AppError } from '@crm/shared/core';
import type { FastifyReply } from 'fastify';
import { errorBody } from '../http/envelope';

const MARK = 'request-id-goes-here';

/** Each refusal's envelope as JSON, split where its request id goes. */
const rendered = new WeakMap<AppError, { head: string; tail: string }>();

/**
 * Answers `error` (a refusal made once and reused, e.g. a bulkhead's) in the public envelope with its Retry-After,
 * from JSON rendered the first time: a flood of refusals costs no serialization and no allocation beyond the body.
 */
export function sendRefusal(reply: FastifyReply, error: AppError): FastifyReply {
  let parts = rendered.get(error);
  if (!parts) {
    const [head = '', tail = ''] = JSON.stringify(errorBody(error, MARK)).split(JSON.stringify(MARK));
    parts = { head, tail };
    rendered.set(error, parts);
  }
  const retryAfter = error.details?.retry_after_seconds;
  if (typeof retryAfter === 'number') void reply.header('Retry-After', String(retryAfter));
  return reply
    .code(error.httpStatus)
    .type('application/json; charset=utf-8')
    .send(parts.head + JSON.stringify(reply.request.id) + parts.tail);
}
