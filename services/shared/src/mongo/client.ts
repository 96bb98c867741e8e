import { MongoClient } from 'mongodb';
import { countCommandsOf } from './command-count';
import { describeStore, requireCapabilities, type StoreCapability, type StoreDescription } from './store';

/** What every process needs of its store: concurrency control is a conditional update, retention a TTL index. */
const REQUIRED: StoreCapability[] = ['isolatedUpdates', 'ttlIndexes'];

export interface ClientChoices {
  /**
   * The driver's command events, which the per-request command count needs (command-count.ts): on only with
   * diagnostics (EXPOSE_DB_COMMANDS). With them on, the driver decodes every reply a second time, whole, for its
   * event — about a seventh of a CRM's CPU under a list load (a page of 100 contacts decoded twice).
   */
  monitorCommands?: boolean;
}

export const clientOptions = (choices: ClientChoices = {}) =>
  ({ serverSelectionTimeoutMS: 15_000, monitorCommands: choices.monitorCommands ?? false }) as const;

/** Checks once, at connect time, that the server gives what the code relies on; then counts commands. */
export async function prepareClient(client: MongoClient, also: StoreCapability[]): Promise<StoreDescription> {
  const store = await describeStore(client);
  requireCapabilities(store, [...REQUIRED, ...also]);
  countCommandsOf(client);
  return store;
}

/** Opens the driver alone, for a process that has no records of the storage kit (the gateway's idempotency records). */
export async function connectMongoClient(uri: string, choices: ClientChoices = {}): Promise<MongoClient & { store: StoreDescription }> {
  const client = await new MongoClient(uri, clientOptions(choices)).connect();
  return Object.assign(client, { store: await prepareClient(client, []) });
}

export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
