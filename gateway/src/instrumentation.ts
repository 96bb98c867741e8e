import { startTelemetry } from '@crm/shared/telemetry';

// Imported first by main.ts: instrumentation must patch http and grpc before they load.
startTelemetry('gateway');
