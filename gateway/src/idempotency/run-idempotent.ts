import { AppError } from '@crm/shared/core';
import { createHash } from 'node:crypto';
import type { IdempotencyStore, StoredResponse } from './idempotency.store';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const WAIT_FOR_FIRST_MS = 5_000;
const POLL_MS = 50;

/**
 * Runs `execute` at most once per (organization, Idempotency-Key) within the key's lifetime. A repeat with
 * the same route and body gets the stored response; another route or body is refused; a repeat that arrives
 * while the first still runs waits briefly for it, then answers IDEMPOTENCY_KEY_IN_USE. `execute` renders
 * refusals (4xx) as responses and throws only for failures that must not be replayed.
 */
export async function runIdempotent(
  store: IdempotencyStore,
  input: { orgId: string; key: string | undefined; route: string; body: unknown },
  execute: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  if (input.key === undefined) return { ...(await execute()), replayed: false };
  if (!KEY_PATTERN.test(input.key)) {
    throw new AppError(
      'VALIDATION_ERROR',
      'The Idempotency-Key header must be 1 to 255 visible ASCII characters (a UUID v4 is recommended).',
      {
        fields: [{ field: 'Idempotency-Key', issue: 'must be 1 to 255 visible ASCII characters' }],
      },
    );
  }
  const fingerprint = createHash('sha256')
    .update(`${input.route}\n${JSON.stringify(input.body ?? null)}`)
    .digest('hex');

  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const claim = await store.claim(input.orgId, input.key, fingerprint);
    if (claim.outcome === 'replay') return { ...claim.response, replayed: true };
    if (claim.outcome === 'mismatch') {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was already used within 24 hours with another route or body. Use a new key for a new request.',
      );
    }
    if (claim.outcome === 'claimed') break;
    if (Date.now() >= deadline) throw new AppError('IDEMPOTENCY_KEY_IN_USE');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }

  let response: StoredResponse;
  try {
    response = await execute();
  } catch (error) {
    await store.release(input.orgId, input.key);
    throw error;
  }
  // Refusals of the request itself (4xx) are its outcome and are replayed; failures of ours (5xx) free the key.
  if (response.status >= 500) await store.release(input.orgId, input.key);
  else await store.complete(input.orgId, input.key, response);
  return { ...response, replayed: false };
}
