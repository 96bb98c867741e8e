import mongoose, { type Connection } from 'mongoose';

/** Opens the service's own database. Each service owns one database and never reads another's. */
export async function connectMongo(uri: string, dbName: string): Promise<Connection> {
  const connection = mongoose.createConnection(uri, {
    dbName,
    serverSelectionTimeoutMS: 15_000,
    // FerretDB has no retryable writes; real MongoDB retries once on failover either way.
    retryWrites: false,
    autoIndex: true,
  });
  await connection.asPromise();
  return connection;
}

export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
