import { ERROR_CATALOGUE } from '@crm/shared/core';
import { instruments, secondsHistogram } from '@crm/shared/metrics';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isProbe } from './probes';

const http = instruments((meter) => ({
  duration: secondsHistogram(
    meter,
    'http_server_request_duration_seconds',
    'Time to answer an API request, by route template, method, status and (4xx/5xx) public error code.',
  ),
  rateLimited: meter.createCounter('crm_gateway_rate_limited_requests_total', {
    description: 'Requests answered 429 RATE_LIMITED (per key and replica token bucket).',
  }),
}));

/** The envelope's code comes first in `error` ({"error":{"type":…,"code":"…"): no JSON parse needed. */
const ERROR_CODE = /"code":"([A-Z_]+)"/;

/** One answered request: its route's template (`/v1/contacts/{id}`, or `unmatched`), never the URL. */
export interface AnsweredRequest {
  route: string;
  method: string;
  status: number;
  /** The catalogue's code of a 4xx/5xx answer. */
  errorCode?: string;
  seconds: number;
}

export function recordAnswer({ route, method, status, errorCode, seconds }: AnsweredRequest): void {
  http().duration.record(seconds, {
    http_route: route,
    http_request_method: method,
    http_response_status_code: status,
    ...(errorCode ? { error_code: errorCode } : {}),
  });
  if (errorCode === 'RATE_LIMITED') http().rateLimited.add(1);
}

/**
 * Records every request Fastify answered (early-admission.ts records those refused before). Labels stay bounded:
 * the route's template, never the URL; the error code only when it is one of the catalogue's.
 */
export function measureRequests(app: FastifyInstance): void {
  const errorCodes = new WeakMap<FastifyRequest, string>();
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode >= 400 && typeof payload === 'string') {
      const code = ERROR_CODE.exec(payload.slice(0, 200))?.[1];
      if (code && code in ERROR_CATALOGUE) errorCodes.set(request, code);
    }
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const template = request.routeOptions.url;
    if (template && isProbe(template)) return;
    recordAnswer({
      route: template ? template.replace(/:(\w+)/g, '{$1}') : 'unmatched',
      method: request.method,
      status: reply.statusCode,
      errorCode: errorCodes.get(request),
      seconds: reply.elapsedTime / 1000,
    });
  });
}
