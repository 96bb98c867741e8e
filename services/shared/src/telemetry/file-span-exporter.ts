import { appendFileSync } from 'node:fs';
import { ExportResultCode, hrTimeToMilliseconds, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * Appends finished spans as JSON lines to a file. Used locally and by the tests that prove one trace spans
 * the gateway and the services, where no collector runs.
 */
export class FileSpanExporter implements SpanExporter {
  constructor(private readonly path: string) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      const lines = spans.map((span) =>
        JSON.stringify({
          service: span.resource.attributes['service.name'],
          name: span.name,
          kind: span.kind,
          trace_id: span.spanContext().traceId,
          span_id: span.spanContext().spanId,
          parent_span_id: span.parentSpanContext?.spanId,
          // Milliseconds since the epoch, and the span's length: where a request spent its time (bench:capacity's profile).
          start_ms: hrTimeToMilliseconds(span.startTime),
          duration_ms: hrTimeToMilliseconds(span.duration),
          attributes: span.attributes,
        }),
      );
      if (lines.length > 0) appendFileSync(this.path, `${lines.join('\n')}\n`);
      done({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      done({ code: ExportResultCode.FAILED, error: error as Error });
    }
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
