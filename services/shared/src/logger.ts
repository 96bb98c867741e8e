import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import { currentRequestId } from './grpc/request-id';

export type { Logger };

/**
 * Credentials redacted wherever a log line may carry them: API keys (the Authorization header, any `key`/`api_key`
 * field) and webhook signing secrets (`secret`, `previous_secret`), at the top, one and two levels down. pino paths
 * have no deep wildcard, so a secret must not be logged deeper than that: log ids, not records.
 */
export const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  '*.*.headers.authorization',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'headers.cookie',
  '*.headers.cookie',
  'secret',
  '*.secret',
  '*.*.secret',
  'previous_secret',
  '*.previous_secret',
  '*.*.previous_secret',
  'key',
  'api_key',
  '*.api_key',
  'apiKey',
  '*.apiKey',
];

export const REDACT = { paths: REDACT_PATHS, censor: '[redacted]' };

/**
 * A pino logger whose lines carry the public id of the API request being served (the `meta.request_id` a client
 * quotes, in every process the request reached) and, when traces are exported, the active trace and span ids;
 * credentials are redacted wherever they appear.
 */
export function createLogger(service: string, level: string, destination?: DestinationStream): Logger {
  const options = {
    name: service,
    level,
    redact: REDACT,
    mixin() {
      const requestId = currentRequestId();
      const span = trace.getActiveSpan();
      const ids = span?.spanContext();
      return { ...(requestId ? { request_id: requestId } : {}), ...(ids ? { trace_id: ids.traceId, span_id: ids.spanId } : {}) };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
