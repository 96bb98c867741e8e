import { inject } from 'vitest';

export interface TestSystem {
  baseUrl: string;
  /** The environment the services run with: MONGODB_URI, KAFKA_BROKERS, database names, topic, gRPC ports. */
  env: Record<string, string>;
  /** Where each process writes its spans (gateway.jsonl, crm.jsonl, webhooks.jsonl). */
  tracesDir: string;
  logDir: string;
}

export const testSystem = (): TestSystem => inject('system');
