import { AppError } from '@crm/shared';

/** What one try answers when another writer changed the record since it was read. */
export const CONFLICT = Symbol('conflict');

/** Conflicting writers retry with a growing random pause; a dozen tries absorb bursts of concurrent edits. */
const MAX_TRIES = 12;

/**
 * Runs a read-plan-write of one record and retries while `tryOnce` reports a CONFLICT, i.e. its write was
 * conditional on a revision another writer (this replica or another) replaced in between. The conditional
 * update is the whole concurrency control: the store applies it atomically (see mongo/store.ts).
 */
export async function writeWithRetry<T>(collection: string, tryOnce: () => Promise<T | typeof CONFLICT>): Promise<T> {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const result = await tryOnce();
    if (result !== CONFLICT) return result;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * (attempt + 1)));
  }
  throw new AppError('INTERNAL_ERROR', `The ${collection} record changed too often concurrently; retry.`);
}
