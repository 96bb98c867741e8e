import { callerIdentity, type CallerIdentity } from '@crm/shared';
import { inject } from 'vitest';

export interface TestSystem {
  baseUrl: string;
  /** The environment the services run with: MONGODB_URI, KAFKA_BROKERS, database names, topic, gRPC ports. */
  env: Record<string, string>;
  /** Where each process writes its spans (gateway.jsonl, crm-1.jsonl, crm-2.jsonl, webhooks-1.jsonl, …). */
  tracesDir: string;
  logDir: string;
  /** Each process's Prometheus scrape URL, by process name (gateway, crm-1, crm-2, webhooks-1, …). */
  metrics: Record<string, string>;
}

export const testSystem = (): TestSystem => inject('system');

/** A test's gRPC calls carry a service token signed with the system's internal key, like the gateway's. */
export const testCaller = (): CallerIdentity =>
  callerIdentity('test', { SERVICE_TOKEN_SECRET: testSystem().env.SERVICE_TOKEN_SECRET ?? '' });
