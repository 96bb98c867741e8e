import { startTelemetry } from '@crm/shared/telemetry';
import { loadGatewayConfig } from './config';

/**
 * Imported first by main.ts: the one read of the environment (a zod schema, OpenTelemetry's variables included),
 * then OpenTelemetry, which must patch http and grpc before they load.
 */
export const config = loadGatewayConfig();
startTelemetry('gateway', config);
