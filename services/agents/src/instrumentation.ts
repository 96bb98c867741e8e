import { startTelemetry } from '@crm/shared/telemetry';

// Imported first by main.ts: instrumentation must patch grpc, http and mongodb before they load.
startTelemetry('agents');
