import { AppError } from '@crm/shared/core';
import type { FastifyInstance } from 'fastify';
import { errorBody } from './envelope';
import { isProbe } from './probes';

type Phase = 'serving' | 'draining' | 'closing';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The gateway's SIGTERM sequence (README "Graceful shutdown"), so that a rolling update or a scale-in loses nothing:
 *
 * 1. draining, for SHUTDOWN_DRAIN_MS: /readyz answers 503 so that load balancers stop sending new requests here, and
 *    everything else is still served as usual; answers carry `Connection: close` so that clients reconnect, to
 *    another replica.
 * 2. closing: the listener closes (a new connection is refused, which a balancer retries on another replica), the
 *    requests in flight finish, and connections are closed as they turn idle. A request that still arrives on an
 *    open connection is refused 503 SERVICE_UNAVAILABLE in the error envelope with Retry-After: it was not started,
 *    so any client may send it again. (Fastify's own answer then would be a bare 503: return503OnClosing is off.)
 */
export class GracefulShutdown {
  private phase: Phase = 'serving';

  constructor(private readonly drainMs: number) {}

  get ready(): boolean {
    return this.phase === 'serving';
  }

  /** The hook that marks or refuses requests once the shutdown has begun; installed before the routes run. */
  install(app: FastifyInstance): void {
    app.addHook('onRequest', async (request, reply) => {
      if (this.phase === 'serving') return;
      void reply.header('Connection', 'close');
      // Probes answer in every phase: /readyz is how a load balancer learns that this replica is going away.
      if (this.phase !== 'closing' || isProbe(request.url)) return;
      const error = new AppError('SERVICE_UNAVAILABLE', 'This gateway replica is shutting down; send the request again.', {
        retry_after_seconds: 1,
      });
      return reply.code(503).header('Retry-After', '1').send(errorBody(error, request.id));
    });
  }

  /** Drains, then closes `app`; resolves once every connection is closed. */
  async run(app: FastifyInstance): Promise<void> {
    this.phase = 'draining';
    app.log.info({ drain_ms: this.drainMs }, 'draining: readiness fails, requests are still served');
    await sleep(this.drainMs);
    this.phase = 'closing';
    // server.close() closes the idle keep-alive connections once, when it starts; these close as they turn idle.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    try {
      await app.close();
    } finally {
      clearInterval(sweep);
    }
  }
}
