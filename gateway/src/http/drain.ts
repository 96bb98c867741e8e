import type { FastifyInstance } from 'fastify';

/**
 * Answers what is in flight, then lets close() finish although clients hold keep-alive connections: responses sent
 * while draining carry `Connection: close`, and connections that turn idle are closed as they do. (close() alone
 * closes the idle ones once, when it starts, and then waits on the busy ones until the kill.)
 */
export function drainingClose(app: FastifyInstance): () => Promise<void> {
  let draining = false;
  app.addHook('onSend', async (_request, reply) => {
    if (draining) void reply.header('connection', 'close');
  });
  return async () => {
    draining = true;
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    try {
      await app.close();
    } finally {
      clearInterval(sweep);
    }
  };
}
