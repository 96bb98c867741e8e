import type { ClientSession, Connection } from 'mongoose';
import { OutboxSignal, type WrittenRecord } from '../outbox/outbox-signal';
import type { ClientChoices } from './client';
import { connectMongo } from './connect';
import type { StoreCapability, StoreDescription } from './store';
import { runTransaction } from './transaction';

/**
 * One service's database as the storage kit sees it: the connection its repositories define their records on,
 * the outbox signal those records wake the relay through, and the transaction helper. Built once per process.
 */
export interface Storage {
  readonly connection: Connection;
  readonly outbox: OutboxSignal;
  /** What the server behind MONGODB_URI can do (store.ts), when known. */
  readonly store: StoreDescription | undefined;
  /** Record stores with versioned derived keys, which refreshDerivedFields brings up to date (derived-fields.ts). */
  readonly derived: Set<{ refreshDerived(): Promise<number>; readonly collection: { collectionName: string } }>;
  /**
   * Runs `work` in one multi-document transaction, whole again after a write conflict with another transaction,
   * with a growing pause (transaction.ts). Events its writes gave to outboxes wake the relay after the commit, when
   * the relay can see them.
   */
  transaction<T>(work: (session: ClientSession) => Promise<T>): Promise<T>;
  /** Called by the kit's writes: wakes the relay now, or at the commit of the transaction `session` belongs to. */
  eventsWritten(record: WrittenRecord, session?: ClientSession): void;
  close(): Promise<void>;
}

export function createStorage(connection: Connection, store?: StoreDescription): Storage {
  const outbox = new OutboxSignal();
  // Records written inside each open transaction: signalled once it committed.
  const uncommitted = new WeakMap<ClientSession, WrittenRecord[]>();
  return {
    connection,
    outbox,
    store,
    derived: new Set(),
    async transaction(work) {
      const session = await connection.startSession();
      try {
        const result = await runTransaction(session, (inTransaction) => {
          // Only the committed try's records count.
          uncommitted.set(session, []);
          return work(inTransaction);
        });
        for (const record of uncommitted.get(session) ?? []) outbox.written(record);
        return result;
      } finally {
        uncommitted.delete(session);
        await session.endSession();
      }
    },
    eventsWritten(record, session) {
      const pending = session && uncommitted.get(session);
      if (pending) pending.push(record);
      else outbox.written(record);
    },
    close: () => connection.close(),
  };
}

/** Opens a service's own database (connect.ts) as a Storage. */
export async function connectStorage(
  uri: string,
  dbName: string,
  options: { requires?: StoreCapability[] } & ClientChoices = {},
): Promise<Storage> {
  const connection = await connectMongo(uri, dbName, options);
  return createStorage(connection, connection.store);
}
