import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { EarlyAdmission } from '../resilience/early-admission';
import type { serverLimits } from './request-limits';

/**
 * The gateway's HTTP server (Fastify's `serverFactory`): each request goes to early admission first, and to Fastify's
 * `handler` only when admitted. Fastify applies its timeouts only to a server it creates itself, so this one applies
 * them. (`app.inject` calls `handler` directly: tests of early admission listen on a port.)
 */
export function admittingServer(
  limits: Pick<ReturnType<typeof serverLimits>, 'http' | 'keepAliveTimeout' | 'requestTimeout'>,
  admit: EarlyAdmission,
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Server {
  const server = createServer(limits.http, (request, response) => {
    if (!admit(request, response)) handler(request, response);
  });
  server.keepAliveTimeout = limits.keepAliveTimeout;
  server.requestTimeout = limits.requestTimeout;
  return server;
}
