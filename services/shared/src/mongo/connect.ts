import { MongoClient } from 'mongodb';
import mongoose, { type Connection } from 'mongoose';
import { countCommandsOf } from './command-count';
import { describeStore, requireCapabilities, type StoreCapability, type StoreDescription } from './store';

/** What every process needs of its store: concurrency control is a conditional update, retention a TTL index. */
const REQUIRED: StoreCapability[] = ['isolatedUpdates', 'ttlIndexes'];

const CLIENT_OPTIONS = {
  serverSelectionTimeoutMS: 15_000,
  // Command monitoring feeds the per-request command count (command-count.ts).
  monitorCommands: true,
} as const;

/** Checks once, at connect time, that the server gives what the code relies on; then counts commands. */
async function prepare(client: MongoClient, also: StoreCapability[]): Promise<StoreDescription> {
  const store = await describeStore(client);
  requireCapabilities(store, [...REQUIRED, ...also]);
  countCommandsOf(client);
  return store;
}

/**
 * Opens a service's own database (mongoose). Each service owns one database and never reads another's. A
 * service that needs more of the store than every service does (multi-document transactions) says so.
 */
export async function connectMongo(
  uri: string,
  dbName: string,
  options: { requires?: StoreCapability[] } = {},
): Promise<Connection & { store: StoreDescription }> {
  const connection = mongoose.createConnection(uri, { ...CLIENT_OPTIONS, dbName, autoIndex: true });
  try {
    await connection.asPromise();
    return Object.assign(connection, { store: await prepare(connection.getClient(), options.requires ?? []) });
  } catch (error) {
    // Not left open behind a failed start (the start-up retry opens a new one).
    await connection.close().catch(() => undefined);
    throw error;
  }
}

/** The same for a process that uses the driver directly (the gateway's idempotency records). */
export async function connectMongoClient(uri: string): Promise<MongoClient & { store: StoreDescription }> {
  const client = await new MongoClient(uri, CLIENT_OPTIONS).connect();
  return Object.assign(client, { store: await prepare(client, []) });
}

export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
