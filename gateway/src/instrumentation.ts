import { startFailure } from '@crm/shared/config';
import { startTelemetry } from '@crm/shared/telemetry';
import { loadGatewayConfig, type GatewayConfig } from './config';

/**
 * Imported first by main.ts: the one read of the environment (a zod schema, OpenTelemetry's variables included),
 * then OpenTelemetry, which must patch http and grpc before they load.
 */
export const config: GatewayConfig = (() => {
  try {
    return loadGatewayConfig();
  } catch (error) {
    console.error(startFailure('gateway', error));
    process.exit(1);
  }
})();
startTelemetry('gateway', config);
