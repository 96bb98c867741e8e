import { EventLogServiceService } from '@crm/proto/gen/webhooks/v1/events';
import { WebhookServiceService } from '@crm/proto/gen/webhooks/v1/webhooks';
import { createAsyncClient } from '@crm/shared';
import { MongoClient } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { freePort } from '../../deploy/lib/ports';
import { startService, waitUntil, type ServiceProcess } from '../../deploy/lib/processes';
import { testCaller, testSystem } from './system';

export interface WebhookReplica {
  client: ReturnType<typeof createAsyncClient<typeof WebhookServiceService>>;
  /** The replica's event log and replays. */
  events: ReturnType<typeof createAsyncClient<typeof EventLogServiceService>>;
  start(): Promise<ServiceProcess>;
}

/**
 * Webhook service replicas of their own — one database, one consumer group, a short lease — on the run's events
 * topic, so that killing them disturbs no other test. Subscriptions are created over a replica's gRPC port.
 */
export async function isolatedWebhooks(options: { replicas: number; name: string; env?: Record<string, string> }) {
  const { env, logDir } = testSystem();
  const suffix = randomUUID().slice(0, 8);
  const shared = {
    ...env,
    WEBHOOKS_DB_NAME: `${env.WEBHOOKS_DB_NAME}_${options.name}_${suffix}`,
    WEBHOOK_CONSUMER_GROUP: `webhooks-${options.name}-${suffix}`,
    WEBHOOK_LEASE_MS: '2500',
    // Held requests time out and count as failures; these tests are about crashes, not about pausing.
    WEBHOOK_PAUSE_AFTER_FAILURES: '1000',
    OTEL_TRACES_FILE: '',
    ...options.env,
  };
  const replicas: WebhookReplica[] = [];
  for (let index = 1; index <= options.replicas; index++) {
    const port = await freePort();
    const name = `webhooks-${options.name}-${index}`;
    const logFile = join(logDir, `${name}-${suffix}.log`);
    const client = createAsyncClient(WebhookServiceService, `127.0.0.1:${port}`, 'webhooks.v1.WebhookService', { identity: testCaller() });
    const events = createAsyncClient(EventLogServiceService, `127.0.0.1:${port}`, 'webhooks.v1.EventLogService', {
      identity: testCaller(),
    });
    replicas.push({
      client,
      events,
      async start() {
        const process = startService(name, 'services/webhooks/src/main.ts', { ...shared, WEBHOOKS_GRPC_PORT: String(port) }, logFile);
        await waitUntil(
          `the isolated webhook replica ${index}`,
          async () => (await client.listEventTypes({ page: { limit: 1, after: undefined } }, { timeoutMs: 1_000 })).items.length === 1,
          {
            timeoutMs: 60_000,
            process,
            logFile,
          },
        );
        return process;
      },
    });
  }
  return {
    replicas,
    consumerGroup: shared.WEBHOOK_CONSUMER_GROUP,
    dbName: shared.WEBHOOKS_DB_NAME,
    async dropDatabase() {
      for (const replica of replicas) {
        replica.client.close();
        replica.events.close();
      }
      const mongo = await new MongoClient(env.MONGODB_URI ?? '').connect();
      await mongo.db(shared.WEBHOOKS_DB_NAME).dropDatabase();
      await mongo.close();
    },
  };
}
