import { AppError } from '@crm/shared/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from './envelope';

/** Fastify's own failures, by code, in the public vocabulary. */
const FASTIFY_CODES: Record<string, () => AppError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError('PAYLOAD_TOO_LARGE'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AppError('INVALID_JSON', 'The Content-Length does not match the body.'),
};

/** The one error handler: every failure leaves as the §7 envelope; internal details are logged, never echoed. */
export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const fastifyCode = (error as FastifyError).code;
  const mapped = error instanceof AppError ? error : fastifyCode ? FASTIFY_CODES[fastifyCode]?.() : undefined;
  const appError = mapped ?? new AppError('INTERNAL_ERROR');
  if (!mapped || appError.httpStatus >= 500) request.log.error({ err: error }, 'request failed');
  // A service that is down or slow is worth retrying soon: 503 and 504 always say when.
  const retryAfter = appError.details?.retry_after_seconds ?? (appError.httpStatus === 503 || appError.httpStatus === 504 ? 1 : undefined);
  if (typeof retryAfter === 'number') void reply.header('Retry-After', String(retryAfter));
  void reply.code(appError.httpStatus).send(errorBody(appError, request.id));
}
