import { connectStorage, createLogger, EventBus, kafkaSettings, newEvent, newId, type OutboxEntry, type Storage } from '@crm/shared';
import { randomUUID } from 'node:crypto';
import type { CommandStartedEvent, Db, Document } from 'mongodb';
import { afterAll, beforeAll, inject } from 'vitest';

// A type, not an interface: it is also an environment (kafkaFromEnv reads its KAFKA_* keys).
export type IntegrationEnv = {
  MONGODB_URI: string;
  KAFKA_BROKERS: string;
  /** The admin login where the stack's Kafka takes logins (config.ts kafkaEnv). */
  KAFKA_SASL_MECHANISM?: string;
  KAFKA_SASL_USERNAME?: string;
  KAFKA_SASL_PASSWORD?: string;
  /** Prefix of every database and topic of this run (integration-setup.ts drops them). */
  namespace: string;
};

/** A name unique to this run and call: databases and topics of one test file never meet another's. */
/** The settings every service's configuration requires, for building a service's dependencies in a test. */
export const REQUIRED_SETTINGS = { LOG_LEVEL: 'silent', SERVICE_TOKEN_SECRET: 'integration-tests-service-token-secret' };

export const uniqueName = (what: string): string => `${inject('integration').namespace}_${what}_${randomUUID().slice(0, 8)}`;

/**
 * A fresh database of the real server, opened as a service opens its own with diagnostics on (capabilities
 * checked, commands counted), with `requires` as messaging asks for transactions. Close it in afterAll; the run drops it.
 */
export function testStorage(what: string, options: { requires?: Array<'transactions'> } = {}): Promise<Storage> {
  return connectStorage(inject('integration').MONGODB_URI, uniqueName(what), { ...options, monitorCommands: true });
}

/** The real Kafka, with a fresh topic of this run. */
export async function testBus(what: string): Promise<{ bus: EventBus; topic: string }> {
  const bus = new EventBus({
    kafka: kafkaSettings(inject('integration')),
    clientId: 'integration',
    logger: createLogger('integration', 'warn'),
  });
  const topic = uniqueName(what);
  await bus.ensureTopic(topic, 1);
  return { bus, topic };
}

/** Waits until the indexes of every model defined on `storage` exist (unique keys must hold before racing writes). */
export async function indexesBuilt(storage: Storage): Promise<void> {
  await Promise.all(Object.values(storage.connection.models).map((model) => model.init()));
}

/**
 * Registers the hooks of a test file that works on one fresh database: before its tests, the storage is opened,
 * `build` makes what the tests use from it (a service's deps) and every index is built; after them, what `build`
 * made is closed (its `close`, e.g. gRPC clients) and so is the storage.
 */
export function useDatabase(
  what: string,
  build: (storage: Storage) => { close?(): void } | void,
  options: { requires?: Array<'transactions'> } = {},
): void {
  let storage: Storage | undefined;
  let built: { close?(): void } | void;
  beforeAll(async () => {
    storage = await testStorage(what, options);
    built = build(storage);
    await indexesBuilt(storage);
  });
  afterAll(async () => {
    built?.close?.();
    await storage?.close();
  });
}

/**
 * What `work` answers and every command the client sent meanwhile, whichever API sent it, as sent (the driver's
 * command events: test storage monitors commands). For a test that looks inside the commands; `withCommandCount`
 * names them.
 */
export async function commandsSent<T>(db: Db, work: () => Promise<T>): Promise<{ result: T; commands: Document[] }> {
  const commands: Document[] = [];
  const record = (event: CommandStartedEvent) => commands.push(event.command);
  db.client.on('commandStarted', record);
  try {
    return { result: await work(), commands };
  } finally {
    db.client.off('commandStarted', record);
  }
}

/** A catalogue-valid event for tests where only its presence matters (it rides in a record's outbox). */
export const testEvent = (orgId: string): OutboxEntry => newEvent(orgId, 'contact.deleted', { object: { id: newId('contact') } });
