import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { FileSpanExporter } from './file-span-exporter';

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry. Must run before grpc, mongodb and kafkajs are first required, so each main.ts imports
 * its instrumentation file first. Spans go to OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, to a JSON-lines
 * file when OTEL_TRACES_FILE is set, and nowhere otherwise (context still propagates across hops).
 */
export function startTelemetry(serviceName: string): void {
  if (sdk || process.env.OTEL_SDK_DISABLED === 'true') return;
  const processors: SpanProcessor[] = [];
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
  if (process.env.OTEL_TRACES_FILE) {
    processors.push(new BatchSpanProcessor(new FileSpanExporter(process.env.OTEL_TRACES_FILE), { scheduledDelayMillis: 200 }));
  }
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? serviceName }),
    spanProcessors: processors,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' }),
      new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
      new MongoDBInstrumentation(),
    ],
  });
  sdk.start();
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
