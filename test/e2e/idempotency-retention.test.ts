import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { IdempotencyStore, type StoredResponse } from '../../gateway/src/idempotency/idempotency.store';
import { testSystem } from '../support/system';

/**
 * Issue 22 finding 5: refused requests (4xx) are replayed under their key for less time than successes, and an
 * organization can store only so many of them, on the real database.
 */
const client = new MongoClient(testSystem().env.MONGODB_URI ?? '');
afterAll(async () => {
  await client.db(`${testSystem().env.GATEWAY_DB_NAME}_idem_retention`).dropDatabase();
  await client.close();
});

const refusal = { status: 422, body: { error: { code: 'VALIDATION_ERROR' } } };
const success = { status: 201, body: { data: { id: 'ct_1' } } };
const HOUR = 3_600_000;

describe('idempotency records of refusals', () => {
  it('are kept for the shorter error lifetime and capped per organization; successes are always kept', async () => {
    const db = (await client.connect()).db(`${testSystem().env.GATEWAY_DB_NAME}_idem_retention`);
    const store = new IdempotencyStore(db, { ttlMs: 24 * HOUR, errorTtlMs: HOUR, maxErrorsPerOrganization: 3 });
    await store.init();
    const now = new Date();
    const run = async (org: string, key: string, response: StoredResponse) => {
      expect(await store.claim(org, key, 'fp', now)).toEqual({ outcome: 'claimed' });
      await store.complete(org, key, response, now);
    };

    for (const key of ['bad-1', 'bad-2', 'bad-3', 'bad-4']) await run('org_a', key, refusal);
    for (const key of ['bad-1', 'bad-2', 'bad-3'])
      expect(await store.claim('org_a', key, 'fp', now)).toEqual({ outcome: 'replay', response: refusal });
    // Over the cap: not stored, the key is free again.
    expect(await store.claim('org_a', 'bad-4', 'fp', now)).toEqual({ outcome: 'claimed' });

    const stored = await db.collection('idempotency_keys').findOne({ _id: 'org_a:bad-1' as never });
    expect(stored!.expires_at.getTime() - now.getTime()).toBe(HOUR);
    // An hour later the refusal is gone; the key may carry another body.
    expect(await store.claim('org_a', 'bad-1', 'other', new Date(now.getTime() + HOUR + 1))).toEqual({ outcome: 'claimed' });

    await run('org_a', 'good-1', success);
    expect(await store.claim('org_a', 'good-1', 'fp', new Date(now.getTime() + 23 * HOUR))).toEqual({
      outcome: 'replay',
      response: success,
    });
    // Another organization has its own cap.
    await run('org_b', 'bad-1', refusal);
    expect(await store.claim('org_b', 'bad-1', 'fp', now)).toEqual({ outcome: 'replay', response: refusal });
  });
});
