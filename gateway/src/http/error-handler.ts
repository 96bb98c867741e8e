import { AppError } from '@crm/shared/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from './envelope';

/** Fastify's own failures, by code, in the public vocabulary. */
const FASTIFY_CODES: Record<string, () => AppError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError('PAYLOAD_TOO_LARGE'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AppError('INVALID_JSON', 'The Content-Length does not match the body.'),
};

/**
 * The one error handler: every failure leaves as the §7 envelope; internal details are logged, never echoed. An
 * unavailable or timed-out answer whose client has already hung up (it stopped waiting in a queue, or gave up)
 * reaches nobody and says nothing new about the system: it is logged at info, so that the end of a flood does not
 * fill the error log. An unexpected error is logged at error whoever is still listening.
 */
export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  const fastifyCode = (error as FastifyError).code;
  const mapped = error instanceof AppError ? error : fastifyCode ? FASTIFY_CODES[fastifyCode]?.() : undefined;
  const appError = mapped ?? new AppError('INTERNAL_ERROR');
  if (!mapped || appError.httpStatus >= 500) {
    if (mapped && request.raw.socket?.destroyed) request.log.info({ err: error }, 'request failed after its client hung up');
    else request.log.error({ err: error }, 'request failed');
  }
  // A service that is down or slow is worth retrying soon: 503 and 504 always say when.
  const retryAfter = appError.details?.retry_after_seconds ?? (appError.httpStatus === 503 || appError.httpStatus === 504 ? 1 : undefined);
  if (typeof retryAfter === 'number') void reply.header('Retry-After', String(retryAfter));
  void reply.code(appError.httpStatus).send(errorBody(appError, request.id));
}
