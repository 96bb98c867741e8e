import type { MongoClient } from 'mongodb';

/**
 * The storage seam: what the MongoDB-wire server behind MONGODB_URI can do, decided once at connect time.
 *
 * - isolatedUpdates: a conditional single-document update (`{_id, rev: n}`) is applied atomically, so it is the
 *   whole concurrency control and any number of replicas may write. MongoDB and SecantusDB (the local server)
 *   isolate; FerretDB 1.x does not (measured: 4–8 of 12 concurrent compare-and-set updates "won").
 * - transactions: multi-document transactions (a replica set, or SecantusDB's single-node one).
 * - ttlIndexes: `expireAfterSeconds` indexes delete expired documents by themselves.
 *
 * The code relies on isolated updates and TTL indexes and nothing here works around their absence: a server
 * without them is refused at start with a clear message instead of silently losing updates.
 */
export type StoreCapability = 'isolatedUpdates' | 'transactions' | 'ttlIndexes';

export interface StoreDescription {
  server: string;
  version: string;
  capabilities: Record<StoreCapability, boolean>;
  /**
   * A `find` reads every document its filter matches, then sorts and limits (SecantusDB 0.5), where MongoDB's index
   * scan stops at the limit: keyset pages then bound their own filter (list-window.ts).
   */
  readsWholeMatch: boolean;
  /**
   * A filter is read through an index only when its fields are exactly the index's leading fields, otherwise
   * through its first field that leads one (SecantusDB 0.5): the kit sends filters shaped for it (filter-routing.ts).
   */
  routesByLeadingFields: boolean;
}

interface BuildInfo {
  version?: string;
  ferretdb?: unknown;
  ferretdbVersion?: string;
  secantusVersion?: string;
}

interface Hello {
  setName?: string;
  msg?: string;
}

export async function describeStore(client: MongoClient): Promise<StoreDescription> {
  const admin = client.db('admin');
  const [buildInfo, hello] = await Promise.all([
    admin.command({ buildInfo: 1 }) as Promise<BuildInfo>,
    admin.command({ hello: 1 }) as Promise<Hello>,
  ]);
  return classify(buildInfo, hello);
}

export function classify(buildInfo: BuildInfo, hello: Hello): StoreDescription {
  const version = String(buildInfo.version ?? 'unknown');
  if (buildInfo.ferretdb !== undefined || buildInfo.ferretdbVersion !== undefined) {
    return {
      server: 'FerretDB',
      version: String(buildInfo.ferretdbVersion ?? version),
      capabilities: { isolatedUpdates: false, transactions: false, ttlIndexes: false },
      readsWholeMatch: true,
      routesByLeadingFields: false,
    };
  }
  // A replica set (or a mongos) runs transactions; a standalone mongod does not.
  const transactions = Boolean(hello.setName) || hello.msg === 'isdbgrid';
  const server = buildInfo.secantusVersion ? 'SecantusDB' : 'MongoDB';
  return {
    server,
    version: buildInfo.secantusVersion ?? version,
    capabilities: { isolatedUpdates: true, transactions, ttlIndexes: true },
    readsWholeMatch: server === 'SecantusDB',
    routesByLeadingFields: server === 'SecantusDB',
  };
}

/** A store that lacks what the code relies on: refused at start, never retried. */
export class UnsupportedStoreError extends Error {
  override readonly name = 'UnsupportedStoreError';
}

export function requireCapabilities(store: StoreDescription, required: StoreCapability[]): void {
  const missing = required.filter((capability) => !store.capabilities[capability]);
  if (missing.length === 0) return;
  throw new UnsupportedStoreError(
    `${store.server} ${store.version} lacks ${missing.join(', ')}, which this service relies on ` +
      "(concurrent updates would be lost, or expired records kept). Use MongoDB (a replica set) or the local stack's SecantusDB.",
  );
}
