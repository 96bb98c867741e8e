import { AppError, lockKey, type KeyedLocks } from '@crm/shared';

/** What one try answers when another writer changed the record since it was read. */
export const CONFLICT = Symbol('conflict');

/** Conflicting writers retry with a growing random pause; a dozen tries absorb bursts of concurrent edits. */
const MAX_TRIES = 12;

/**
 * Runs a read-plan-write of one record under its lock (writers of this process; see KeyedLocks) and retries
 * while `tryOnce` reports a CONFLICT, i.e. its write was conditional on a revision another replica replaced
 * (real MongoDB applies that condition atomically).
 */
export function writeWithRetry<T>(locks: KeyedLocks, collection: string, id: string, tryOnce: () => Promise<T | typeof CONFLICT>): Promise<T> {
  return locks.run(lockKey(collection, id), async () => {
    for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
      const result = await tryOnce();
      if (result !== CONFLICT) return result;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * (attempt + 1)));
    }
    throw new AppError('INTERNAL_ERROR', `The ${collection} record changed too often concurrently; retry.`);
  });
}
