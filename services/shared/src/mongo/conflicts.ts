import { ExponentialBackoff, handleType, retry, type RetryPolicy } from 'cockatiel';
import { AppError } from '../errors/app-error';
import { instruments } from '../telemetry/metrics';

/**
 * What a conditional write throws when the record changed since it was read (another request, replica or worker
 * won). It is a SERVICE_UNAVAILABLE AppError, so a conflict that escapes every retry still answers 503 with
 * Retry-After (the gateway adds it to every 503) — never a 500, never a silent loss.
 */
export class WriteConflict extends AppError {
  constructor(what: string) {
    super('SERVICE_UNAVAILABLE', `The ${what} changed too often concurrently; retry.`);
    this.name = 'WriteConflict';
  }
}

const conflicts = instruments((meter) =>
  meter.createCounter('crm_storage_write_conflicts_total', {
    description:
      'Conditional writes that found their record changed: outcome "retried" (read and planned again) or "gave_up" (answered 503).',
  }),
);

/**
 * The platform's one conflict policy (cockatiel). Each round of contenders for one record lets exactly one
 * through; the decorrelated-jitter backoff (2 ms growing to at most 100 ms) spreads the others out. 40 retries
 * carry dozens of concurrent writers of one record (30 tag adds through two replicas in the e2e suite) and bound
 * a hopeless one to a few seconds.
 */
const conflictPolicy = countedAsConflicts(
  retry(handleType(WriteConflict), {
    maxAttempts: 40,
    backoff: new ExponentialBackoff({ initialDelay: 2, maxDelay: 100 }),
  }),
);

/**
 * Counts a retry policy's retries and give-ups in crm_storage_write_conflicts_total: this one's, and the storage
 * kit's transactions rerun after meeting another transaction (transaction.ts).
 */
export function countedAsConflicts(policy: RetryPolicy): RetryPolicy {
  policy.onRetry(() => conflicts().add(1, { outcome: 'retried' }));
  policy.onGiveUp(() => conflicts().add(1, { outcome: 'gave_up' }));
  return policy;
}

/**
 * Runs a read-plan-write and runs it again while it throws WriteConflict. `attempt` must read what it decides on
 * afresh each time. After the last retry the WriteConflict itself is thrown (503 SERVICE_UNAVAILABLE).
 */
export function retryOnConflict<T>(attempt: () => Promise<T>): Promise<T> {
  return conflictPolicy.execute(attempt);
}
