import { createNoopMeter, metrics, trace } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { FileSpanExporter } from './file-span-exporter';
import { serveMetrics, type MetricsEndpoint } from './metrics-endpoint';

export type { MetricsEndpoint } from './metrics-endpoint';

/**
 * The tracer and meter providers, set up by hand rather than with @opentelemetry/sdk-node: that package loads every
 * exporter it could configure (OTLP over gRPC and protobuf, Zipkin, logs), which cost each process about 0.5 s of
 * CPU at start (measured: starting telemetry took 0.82 s of CPU with it, 0.30 s without; median of 7, side by side),
 * and a restarted replica serves only once it has started.
 */
let sdk: { shutdown(): Promise<void> } | undefined;
let prometheus: PrometheusExporter | undefined;
let endpoint: MetricsEndpoint | undefined;

/** What telemetry/start needs of a process's configuration (config.ts telemetryEnv). */
export interface TelemetrySettings {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_TRACES_FILE?: string | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
  OTEL_SDK_DISABLED?: boolean | undefined;
  OTEL_TRACES_SAMPLER_ARG?: number | undefined;
}

const NOOP_METER = createNoopMeter();

/**
 * A database span's statement: its shape with every value replaced by "?" (what enhancedDatabaseReporting off
 * records), built only when the span is recorded. The instrumentation asks before it knows (the request's span is
 * the parent, and an unsampled parent has unsampled children): walking every inserted document for a span nobody
 * records cost ~1 % of the gateway's and the CRM's CPU per request (profiled).
 */
function statementShape(command: Record<string, unknown>): string {
  if (!trace.getActiveSpan()?.isRecording()) return '';
  const seen = new WeakSet<object>();
  return JSON.stringify(command, (_key, value: unknown) => {
    if (typeof value !== 'object' || value === null) return '?';
    if (seen.has(value)) return '[Circular]';
    seen.add(value);
    return value;
  });
}

/** Probes and scrapes are not requests worth a span. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Starts OpenTelemetry. Must run before grpc, mongodb and kafkajs are first required: the services' bootstrap
 * (service/run-service.ts) starts it right after reading the configuration and only then loads the rest; the
 * gateway's main.ts imports its instrumentation file first. Spans go to OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set, to a JSON-lines file when OTEL_TRACES_FILE is set. With neither, no tracing is set up at all: no tracer
 * provider, no instrumentation, no trace context. Instrumentation that records for nobody still wraps every request,
 * call and command (with telemetry off entirely, one run side by side: the gateway's CPU per read 0.63 → 0.49 ms,
 * the CRM's 0.66 → 0.60); log lines then correlate by the request id (logger.ts).
 *
 * Metrics are collected from here on (the meter provider is global before any instrument is created) and read
 * only when Prometheus scrapes the endpoint that startMetricsEndpoint opens once the configuration is loaded;
 * nothing is pushed. Every series carries `service_name`. The instrumentations' own metrics are dropped: the
 * project records its own, with predictable names (docs/operations.md).
 */
export function startTelemetry(serviceName: string, settings: TelemetrySettings): void {
  if (sdk || settings.OTEL_SDK_DISABLED) return;
  const processors: SpanProcessor[] = [];
  const endpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint) {
    // Loaded only when traces are exported: 72 of the 1,627 modules a service loaded at start otherwise.
    type Otlp = typeof import('@opentelemetry/exporter-trace-otlp-http');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load in a synchronous start
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as Otlp;
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` })));
  }
  if (settings.OTEL_TRACES_FILE) {
    processors.push(new BatchSpanProcessor(new FileSpanExporter(settings.OTEL_TRACES_FILE), { scheduledDelayMillis: 200 }));
  }
  prometheus = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true, withResourceConstantLabels: /^service\.name$/ });
  const resource = resourceFromAttributes({ 'service.name': settings.OTEL_SERVICE_NAME ?? serviceName });
  const meterProvider = new MeterProvider({ resource, readers: [prometheus] });
  metrics.setGlobalMeterProvider(meterProvider);
  const tracerProvider = processors.length > 0 ? startTracing(resource, processors, settings.OTEL_TRACES_SAMPLER_ARG ?? 0.1) : undefined;
  sdk = {
    shutdown: async () => {
      await Promise.all([tracerProvider?.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/**
 * The tracer provider (registered globally with the AsyncLocalStorage context manager and the W3C trace-context
 * propagator) and the instrumentations that make spans of incoming HTTP requests, gRPC calls and database commands.
 */
function startTracing(resource: Resource, spanProcessors: SpanProcessor[], ratio: number): NodeTracerProvider {
  // Sampled, not off: every span of an unsampled trace is a no-op (measured: recording every span cost the gateway
  // and the CRM about a tenth of their CPU per request under load), while the context still propagates.
  const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  const tracerProvider = new NodeTracerProvider({ resource, sampler, spanProcessors });
  tracerProvider.register();
  // Credentials stay out of spans (test/e2e/secrets-hygiene.test.ts): no request or response headers are copied
  // (no headersToSpanAttributes), no gRPC metadata (no metadataToSpanAttributes), and database statements keep
  // their shape with every value replaced by "?" (enhancedDatabaseReporting off), so no stored secret is recorded.
  const instrumentations = [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has(req.url?.split('?')[0] ?? ''),
    }),
    new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
    new MongoDBInstrumentation({ enhancedDatabaseReporting: false, dbStatementSerializer: statementShape }),
  ];
  // The instrumentations' own metrics are not wanted: they get a meter that records nothing. (A DROP view still
  // hashed the attributes of every sample: the MongoDB pool's counters cost ~1 % of the CRM's CPU per request.)
  registerInstrumentations({ instrumentations, tracerProvider, meterProvider: { getMeter: () => NOOP_METER } });
  return tracerProvider;
}

/**
 * Serves the collected metrics on `host:port/metrics` for Prometheus; port 0 (METRICS_PORT=0) serves nothing.
 * stopTelemetry closes it.
 */
export async function startMetricsEndpoint(options: { host: string; port: number }): Promise<MetricsEndpoint | undefined> {
  const exporter = prometheus;
  if (!exporter || options.port === 0 || endpoint) return endpoint;
  endpoint = await serveMetrics(options, (request, response) => exporter.getMetricsRequestHandler(request, response));
  return endpoint;
}

export async function stopTelemetry(): Promise<void> {
  await endpoint?.close();
  endpoint = undefined;
  await sdk?.shutdown();
  sdk = undefined;
  prometheus = undefined;
}
