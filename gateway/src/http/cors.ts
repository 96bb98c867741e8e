import type { FastifyReply, FastifyRequest } from 'fastify';

/** Request headers a browser may send: the key, JSON bodies, idempotency. */
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key';
/** Response headers a browser script may read besides the CORS-safelisted ones. */
const EXPOSE_HEADERS = 'X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed, Allow';
/** How long a browser may cache a preflight; browsers cap it (Chromium at 2 h). */
const MAX_AGE_SECONDS = '7200';

/**
 * The CORS policy. The API authenticates with keys in the Authorization header, never cookies, so no
 * credentials are allowed and `*` is a safe default. A preflight (OPTIONS with Access-Control-Request-Method)
 * of a known path answers 204 with that path's methods; from an origin that is not allowed it answers 204
 * with no CORS headers, and the browser blocks the call. Returns true when it answered the request.
 */
export function createCors(allowedOrigins: string, methodsOf: (url: string) => string[] | undefined) {
  const headersFor = corsHeaders(allowedOrigins);

  return function cors(request: FastifyRequest, reply: FastifyReply): boolean {
    const { permitted, headers } = headersFor(request.headers.origin);
    void reply.headers(headers);
    if (request.method !== 'OPTIONS' || !request.headers['access-control-request-method']) return false;
    const methods = methodsOf(request.url);
    if (!methods) return false;
    if (permitted) {
      void reply.header('Access-Control-Allow-Methods', methods.join(', '));
      void reply.header('Access-Control-Allow-Headers', ALLOW_HEADERS);
      void reply.header('Access-Control-Max-Age', MAX_AGE_SECONDS);
    }
    void reply.code(204).send();
    return true;
  };
}

/**
 * The CORS headers of every answer to a request from `origin` (also those refused before Fastify reads them:
 * early-admission.ts), and whether that origin is allowed.
 */
export function corsHeaders(allowedOrigins: string) {
  const anyOrigin = allowedOrigins.trim() === '*';
  const allowed = new Set(
    allowedOrigins
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
  );
  return (origin: string | undefined): { permitted: boolean; headers: Record<string, string> } => {
    const permitted = origin !== undefined && (anyOrigin || allowed.has(origin));
    const headers: Record<string, string> = anyOrigin ? {} : { Vary: 'Origin' };
    if (permitted) {
      headers['Access-Control-Allow-Origin'] = anyOrigin ? '*' : origin;
      headers['Access-Control-Expose-Headers'] = EXPOSE_HEADERS;
    }
    return { permitted, headers };
  };
}
