import mongoose, { type Connection } from 'mongoose';
import { clientOptions, prepareClient, type ClientChoices } from './client';
import type { StoreCapability, StoreDescription } from './store';

// Mongoose keeps a stack trace of every query, read only to explain a query run twice (ours never are): its
// capture showed in the CRM's CPU profile of GET /v1/contacts/{id}.
mongoose.set('skipOriginalStackTraces', true);

/**
 * Opens a service's own database (mongoose). Each service owns one database and never reads another's. A
 * service that needs more of the store than every service does (multi-document transactions) says so.
 */
export async function connectMongo(
  uri: string,
  dbName: string,
  options: { requires?: StoreCapability[] } & ClientChoices = {},
): Promise<Connection & { store: StoreDescription }> {
  const connection = mongoose.createConnection(uri, { ...clientOptions(options), dbName, autoIndex: true });
  try {
    await connection.asPromise();
    return Object.assign(connection, { store: await prepareClient(connection.getClient(), options.requires ?? []) });
  } catch (error) {
    // Not left open behind a failed start (the start-up retry opens a new one).
    await connection.close().catch(() => undefined);
    throw error;
  }
}
