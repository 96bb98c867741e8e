/**
 * Why a model call failed. The runner stores `message` as the run's `error_message`, so it is written for a person
 * and never carries the API key (see `redactSecret`).
 * - `model_timeout`: no answer within the per-attempt timeout (after the retries), or the caller's deadline passed.
 * - `model_rate_limited`: 429 after the retries, or a Retry-After longer than we are willing to wait.
 * - `model_unavailable`: 5xx or connection errors after the retries (also the local provider's simulated failure).
 * - `model_refused`: any other 4xx (bad key, unknown model, invalid request) or a content-filtered answer: retrying
 *   cannot help.
 * - `model_bad_response`: a 2xx whose body is not a chat completion with a message.
 * - `model_cancelled`: the caller aborted for another reason than a timeout (shutdown).
 */
export type ModelErrorCode =
  'model_timeout' | 'model_rate_limited' | 'model_unavailable' | 'model_refused' | 'model_bad_response' | 'model_cancelled';

export class ModelError extends Error {
  override readonly name = 'ModelError';

  constructor(
    readonly code: ModelErrorCode,
    message: string,
    /** The HTTP status of the last attempt; null when there was no HTTP answer. */
    readonly status: number | null = null,
    /** How many HTTP attempts were made (0 for the local provider). */
    readonly attempts = 0,
  ) {
    super(message);
  }
}

/** Provider error bodies may quote the key back ("Incorrect API key provided: sk-…"): never let it through. */
export function redactSecret(text: string, secret: string): string {
  const withoutKey = secret.length > 0 ? text.split(secret).join('[redacted]') : text;
  return withoutKey.replace(/\b(sk-|Bearer\s+)[\w.*-]{6,}/gi, '$1[redacted]');
}

/** The error for a call the caller aborted: its deadline (a TimeoutError reason) or anything else (shutdown). */
export function cancelledBy(signal: AbortSignal, attempts = 0): ModelError {
  const reason: unknown = signal.reason;
  const timedOut = typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
  return timedOut
    ? new ModelError('model_timeout', "The model did not answer before the run's deadline.", null, attempts)
    : new ModelError('model_cancelled', 'The model call was cancelled.', null, attempts);
}
