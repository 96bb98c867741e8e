import { AppError } from '@crm/shared/core';
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../http/envelope';
import { isProbe } from '../http/probes';

/**
 * Load shedding: at most `max` requests are served at once by this process; one more is answered 503
 * SERVICE_UNAVAILABLE with Retry-After: 1 at once, never queued, so a slow backing service cannot pile up
 * unbounded work (sockets, memory, pending calls) in the gateway. 0 disables the cap.
 */
export function limitInflight(app: FastifyInstance, max: number): void {
  if (max <= 0) return;
  let inflight = 0;
  app.addHook('onRequest', async (request, reply) => {
    // Probes must answer however busy the process is: a refused liveness probe would get a busy replica killed.
    if (isProbe(request.url)) return;
    if (inflight >= max) {
      const error = new AppError('SERVICE_UNAVAILABLE', 'The API is at capacity; retry after the indicated time.', {
        retry_after_seconds: 1,
      });
      return reply.code(503).header('Retry-After', '1').send(errorBody(error, request.id));
    }
    inflight += 1;
    // 'close' follows every response: sent, failed, or the client gone before the answer.
    reply.raw.once('close', () => (inflight -= 1));
  });
}
