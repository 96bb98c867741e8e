import type { z } from 'zod';
import { checkKafkaSettings, loadConfig, startFailure, type ServiceConfig } from '../config';
import { startTelemetry } from '../telemetry/start';
import type { ServiceDefinition } from './service-definition';

export type { ServiceContext, ServiceDefinition, Startable, Startables } from './service-definition';

export interface ServiceEntry<C extends ServiceConfig, D> {
  /** The process's name in logs, metrics and traces. */
  name: string;
  /** The one zod schema of the process's environment (it extends config.ts serviceEnv). */
  config: z.ZodType<C>;
  /**
   * The service's wiring, loaded once OpenTelemetry runs: its modules load grpc, mongoose and kafkajs, which
   * must be patched first. Hence a dynamic import in main.ts, and only light modules above this line.
   */
  load(): Promise<(config: C) => ServiceDefinition<C, D>>;
}

/**
 * Runs a gRPC service: reads the configuration once (every bad variable listed), starts telemetry, then loads the
 * wiring and hands it to the bootstrap (bootstrap.ts), which owns connect → topic → relay → server → health →
 * shutdown. A failure at start prints it and exits 1.
 */
export function runService<C extends ServiceConfig, D>(entry: ServiceEntry<C, D>): void {
  const start = async () => {
    const config = loadConfig(entry.config);
    checkKafkaSettings(config);
    startTelemetry(entry.name, config);
    const [{ bootstrap }, define] = await Promise.all([import('./bootstrap.js'), entry.load()]);
    await bootstrap(entry.name, config, define(config));
  };
  start().catch((error: unknown) => {
    console.error(startFailure(entry.name, error));
    process.exit(1);
  });
}
