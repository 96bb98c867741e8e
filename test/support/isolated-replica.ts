import type { createAsyncClient } from '@crm/shared';
import { MongoClient } from 'mongodb';
import { startService, waitUntil, type ServiceProcess } from '../../deploy/lib/processes';

/** One process of an isolated service: started and SIGKILLed at will by a crash test. */
export interface IsolatedReplica<C extends { close(): void } = ReturnType<typeof createAsyncClient>> {
  name: string;
  client: C;
  process: ServiceProcess | undefined;
  start(): Promise<void>;
  kill(): Promise<void>;
}

/** A replica of `entry` with `env`, ready when `ready(client)` answers true (a gRPC call that lists something). */
export function isolatedReplica<C extends { close(): void }>(options: {
  name: string;
  entry: string;
  env: Record<string, string>;
  logFile: string;
  client: C;
  ready: (client: C) => Promise<boolean>;
}): IsolatedReplica<C> {
  const replica: IsolatedReplica<C> = {
    name: options.name,
    client: options.client,
    process: undefined,
    async start() {
      replica.process = startService(options.name, options.entry, options.env, options.logFile);
      await waitUntil(options.name, () => options.ready(options.client), {
        timeoutMs: 60_000,
        process: replica.process,
        logFile: options.logFile,
      });
    },
    async kill() {
      await replica.process?.stop('SIGKILL');
    },
  };
  return replica;
}

/** Stops the replicas, closes their clients and drops the isolated database. */
export async function stopReplicas(replicas: Array<IsolatedReplica<{ close(): void }>>, mongoUri: string, dbName: string): Promise<void> {
  await Promise.all(replicas.map((replica) => replica.process?.stop()));
  for (const replica of replicas) replica.client.close();
  const mongo = await new MongoClient(mongoUri).connect();
  await mongo.db(dbName).dropDatabase();
  await mongo.close();
}
