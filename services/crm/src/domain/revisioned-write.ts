import { AppError } from '@crm/shared';

/** What one try answers when another writer changed the record since it was read. */
export const CONFLICT = Symbol('conflict');

/**
 * How long a writer keeps retrying a contested record. Each round of contenders lets exactly one through, so
 * dozens of concurrent writers of one record (two replicas, many clients) all land well within it.
 */
const RETRY_BUDGET_MS = 10_000;
const MAX_PAUSE_MS = 50;

/**
 * Runs a read-plan-write of one record and retries while `tryOnce` reports a CONFLICT, i.e. its write was
 * conditional on a revision another writer (this replica or another) replaced in between. The conditional
 * update is the whole concurrency control: the store applies it atomically (see mongo/store.ts). Pauses grow
 * exponentially with full jitter, so contenders spread out instead of colliding again.
 */
export async function writeWithRetry<T>(collection: string, tryOnce: () => Promise<T | typeof CONFLICT>): Promise<T> {
  const deadline = Date.now() + RETRY_BUDGET_MS;
  for (let attempt = 0; ; attempt++) {
    const result = await tryOnce();
    if (result !== CONFLICT) return result;
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(MAX_PAUSE_MS, 2 ** attempt)));
  }
  throw new AppError('SERVICE_UNAVAILABLE', `The ${collection} record changed too often concurrently; retry.`);
}
