import { AppError } from './app-error';

/** Driver and client errors of an unreachable or overloaded server (the MongoDB driver, kafkajs). */
const TRANSIENT_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoWriteConcernError',
  'KafkaJSConnectionError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
]);

/** Catalogue codes that mean "a dependency is down or slow right now", not "this input is wrong". */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT']);

/**
 * Whether an error says that something the work needs is unavailable for now (a database, the broker, another
 * service), so that the same work will succeed later unchanged. Anything else (a bug, a refused input) is not
 * transient: retrying it forever would stop whatever waits behind it.
 */
export function isTransientError(error: unknown): boolean {
  if (error instanceof AppError) return TRANSIENT_CODES.has(error.code);
  if (!(error instanceof Error)) return false;
  if (TRANSIENT_NAMES.has(error.name)) return true;
  const labelled = error as Error & { hasErrorLabel?: (label: string) => boolean };
  return labelled.hasErrorLabel?.('RetryableWriteError') === true || labelled.hasErrorLabel?.('TransientTransactionError') === true;
}
