import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import type { Logger } from '../logger';
import { UnsupportedStoreError } from '../mongo/store';

/**
 * The one retry policy of a service's start-up (the database, the events topic): a dependency still starting (a
 * pod scheduled before Kafka is ready) is waited for, from 250 ms growing to 5 s between 8 tries, instead of
 * crash-looping. A store that lacks what the code needs is refused at once: waiting does not change it.
 */
export async function startupRetry<T>(logger: Logger, what: string, work: () => Promise<T>): Promise<T> {
  const policy = retry(
    handleWhen((error) => !(error instanceof UnsupportedStoreError)),
    { maxAttempts: 8, backoff: new ExponentialBackoff({ initialDelay: 250, maxDelay: 5_000 }) },
  );
  policy.onRetry((event) =>
    logger.warn(
      { err: 'error' in event ? event.error : undefined, delayMs: Math.round(event.delay) },
      `${what} not reachable yet; retrying`,
    ),
  );
  return policy.execute(work);
}
