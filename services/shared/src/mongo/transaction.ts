import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import { MongoError, MongoErrorLabel } from 'mongodb';
import type { ClientSession } from 'mongoose';
import { countedAsConflicts, WriteConflict } from './conflicts';

/**
 * How long a transaction keeps trying while another transaction holds what it writes: as long as the driver's
 * `withTransaction`, to outlast a transaction whose process died mid-way, which the server aborts only at its
 * lifetime limit (`transactionLifetimeLimitSeconds`, 60 s by default on MongoDB and SecantusDB).
 */
const BUDGET_MS = 120_000;

/**
 * Runs `work` in one transaction on `session`, whole again after each write conflict with another transaction
 * (the server's TransientTransactionError, at any write or at the commit), with a jittered pause growing from 2 to
 * 250 ms: the driver's `withTransaction` reruns at once — behind a transaction held open for 2 s it made 1,517
 * attempts on SecantusDB, each a write and an abort for the server to answer. Past the budget: WriteConflict (503).
 * Any other error, a WriteConflict thrown by `work` itself included, aborts and goes to the caller at once: a lost
 * conditional write means what the caller read is stale, and its read-plan-write reads again.
 */
export async function runTransaction<T>(session: ClientSession, work: (session: ClientSession) => Promise<T>): Promise<T> {
  try {
    return await transactionPolicy.execute(() => attempt(session, work), AbortSignal.timeout(BUDGET_MS));
  } catch (error) {
    // Still in conflict when the budget ran out.
    if (isTransientConflict(error)) throw new WriteConflict('record');
    throw error;
  }
}

const isTransientConflict = (error: unknown) =>
  error instanceof MongoError && error.hasErrorLabel(MongoErrorLabel.TransientTransactionError);

/**
 * Any number of tries while the budget's signal has not fired (cockatiel stops retrying once it has); each rerun,
 * and a budget run out, counted as a write conflict.
 */
const transactionPolicy = countedAsConflicts(
  retry(handleWhen(isTransientConflict), {
    maxAttempts: Infinity,
    backoff: new ExponentialBackoff({ initialDelay: 2, maxDelay: 250 }),
  }),
);

/**
 * A commit whose outcome the driver could not learn is asked again, twice (the driver retries once more itself):
 * committing again is safe, the server answers a transaction's commit the same way each time it is asked.
 */
const commitPolicy = retry(
  handleWhen((error) => error instanceof MongoError && error.hasErrorLabel(MongoErrorLabel.UnknownTransactionCommitResult)),
  { maxAttempts: 2 },
);

async function attempt<T>(session: ClientSession, work: (session: ClientSession) => Promise<T>): Promise<T> {
  session.startTransaction();
  try {
    const result = await work(session);
    await commitPolicy.execute(() => session.commitTransaction());
    return result;
  } catch (error) {
    if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
    throw error;
  }
}
