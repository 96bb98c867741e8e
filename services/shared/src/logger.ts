import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';

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

/** A pino logger whose lines carry the active trace id; credentials are redacted wherever they appear. */
export function createLogger(service: string, level: string, destination?: DestinationStream): Logger {
  const options = {
    name: service,
    level,
    redact: REDACT,
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
