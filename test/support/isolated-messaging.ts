import { BroadcastServiceService } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import { createAsyncClient, createLogger, createStorage, newId, randomToken } from '@crm/shared';
import mongoose from 'mongoose';
import { join } from 'node:path';
import { freePort } from '../../deploy/lib/ports';
import { startService, waitUntil } from '../../deploy/lib/processes';
import { loadMessagingConfig } from '../../services/messaging/src/config';
import { createNumber } from '../../services/messaging/src/domain/admin';
import { createDeps } from '../../services/messaging/src/wiring';
import { isolatedReplica, stopReplicas, type IsolatedReplica } from './isolated-replica';
import { testCaller, testSystem } from './system';

export type MessagingReplica = IsolatedReplica<ReturnType<typeof createAsyncClient<typeof BroadcastServiceService>>>;

/**
 * Messaging replicas of their own — one database, one provider simulator whose callbacks go to them — next to
 * the run's CRM and events topic, so that killing them disturbs no other test. Broadcasts are driven over a
 * replica's gRPC port; numbers are connected with the admin functions on the isolated database.
 */
export async function isolatedMessaging(options: { replicas: number; name: string; env?: Record<string, string> }) {
  const { env, logDir } = testSystem();
  const suffix = randomToken(6);
  const simPort = await freePort();
  const sim = `http://127.0.0.1:${simPort}`;
  const ports = await Promise.all(
    Array.from({ length: options.replicas }, async () => ({ grpc: await freePort(), http: await freePort() })),
  );
  const shared: Record<string, string> = {
    ...(env as Record<string, string>),
    MESSAGING_DB_NAME: `${env.MESSAGING_DB_NAME}_${options.name}_${suffix}`,
    CLOUD_API_BASE_URL: sim,
    QR_BRIDGE_BASE_URL: sim,
    PHOTOAPP_BASE_URL: `${sim}/photoapp`,
    SOCIALMSG_BASE_URL: `${sim}/socialmsg`,
    OTEL_TRACES_FILE: '',
    ...options.env,
  };
  const simLog = join(logDir, `sim-${options.name}-${suffix}.log`);
  const simulator = startService(
    `sim-${options.name}`,
    'tools/dev/src/simulator/main.ts',
    { ...shared, SIM_PORT: String(simPort), SIM_CALLBACK_URL: ports.map((p) => `http://127.0.0.1:${p.http}`).join(',') },
    simLog,
  );
  await waitUntil('the isolated simulator', async () => (await fetch(`${sim}/healthz`)).ok, {
    timeoutMs: 30_000,
    process: simulator,
    logFile: simLog,
  });

  const replicas: MessagingReplica[] = ports.map((port, index) => {
    const name = `messaging-${options.name}-${index + 1}`;
    const logFile = join(logDir, `${name}-${suffix}.log`);
    const client = createAsyncClient(BroadcastServiceService, `127.0.0.1:${port.grpc}`, 'broadcasts.v1.BroadcastService', {
      identity: testCaller(),
    });
    const replica: MessagingReplica = isolatedReplica({
      name,
      entry: 'services/messaging/src/main.ts',
      env: { ...shared, MESSAGING_GRPC_PORT: String(port.grpc), MESSAGING_HTTP_PORT: String(port.http) },
      logFile,
      client,
      ready: async (c) =>
        Array.isArray(
          (
            await c.listBroadcasts(
              { org_id: newId('organization'), page: { limit: 1, after: undefined }, filter: undefined },
              { timeoutMs: 1_000 },
            )
          ).items,
        ),
    });
    return replica;
  });

  const connection = await mongoose.createConnection(shared.MONGODB_URI ?? '', { dbName: shared.MESSAGING_DB_NAME }).asPromise();
  const admin = createDeps(
    createStorage(connection),
    loadMessagingConfig({ ...shared, LOG_LEVEL: 'silent' }),
    createLogger('test-isolated-admin', 'silent'),
  );
  await Promise.all(Object.values(connection.models).map((model) => model.init()));

  return {
    replicas,
    admin,
    /** The simulator's control API. */
    async sim<T = any>(path: string, body?: unknown): Promise<T> {
      const response = await fetch(
        `${sim}/control/${path}`,
        body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      );
      return (await response.json()) as T;
    },
    async addNumber(orgId: string, kind: 'qrcode' | 'official', name: string) {
      const ref = `iso-${kind}-${randomToken(10)}`;
      const view = await createNumber(admin, { org_id: orgId, kind, name, provider_ref: ref });
      return { id: String(view.id), ref };
    },
    async stop() {
      await simulator.stop();
      admin.close();
      await connection.close();
      await stopReplicas(replicas, shared.MONGODB_URI ?? '', shared.MESSAGING_DB_NAME ?? '');
    },
  };
}
