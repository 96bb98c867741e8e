import { MongoError, MongoErrorLabel } from 'mongodb';
import type { ClientSession } from 'mongoose';
import { WriteConflict } from './conflicts';

/** A commit whose outcome the driver could not learn is asked again this many times (the driver retries once more itself). */
const COMMIT_TRIES = 3;

/**
 * Runs `work` in one transaction on `session`, once. A write conflict with another transaction (the server's
 * TransientTransactionError, at any write or at the commit) aborts it and throws WriteConflict, so that the
 * platform's conflict policy (conflicts.ts) runs it again after a jittered pause. Not the driver's
 * `withTransaction`: it reruns at once, for up to 120 s — behind a transaction held open for 2 s it made 1,517
 * attempts on SecantusDB, each a write and an abort the server had to answer.
 */
export async function attemptTransaction<T>(session: ClientSession, work: (session: ClientSession) => Promise<T>): Promise<T> {
  session.startTransaction();
  try {
    const result = await work(session);
    await commit(session);
    return result;
  } catch (error) {
    if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
    if (error instanceof MongoError && error.hasErrorLabel(MongoErrorLabel.TransientTransactionError)) {
      throw new WriteConflict('record');
    }
    throw error;
  }
}

async function commit(session: ClientSession): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      return await session.commitTransaction();
    } catch (error) {
      // Committing again is safe: the server answers a transaction's commit the same way each time it is asked.
      const unknown = error instanceof MongoError && error.hasErrorLabel(MongoErrorLabel.UnknownTransactionCommitResult);
      if (!unknown || tries >= COMMIT_TRIES) throw error;
    }
  }
}
