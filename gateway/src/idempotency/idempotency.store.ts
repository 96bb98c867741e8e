import { isDuplicateKeyError } from '@crm/shared/mongo-driver';
import type { Collection, Db } from 'mongodb';

export interface StoredResponse {
  status: number;
  body: unknown;
}

interface IdempotencyDoc {
  /** `<org>:<key>`: one record per key and organization. */
  _id: string;
  fingerprint: string;
  state: 'running' | 'done';
  response: StoredResponse | null;
  /** A running request whose lock expired (a crashed gateway) may be taken over. */
  locked_until: Date;
  expires_at: Date;
}

export type ClaimResult =
  { outcome: 'claimed' } | { outcome: 'replay'; response: StoredResponse } | { outcome: 'mismatch' } | { outcome: 'running' };

/**
 * Idempotency records in the gateway's own database. The claim is an insert on a unique _id, so two concurrent
 * requests with one key cannot both execute. Expired records are ignored at once and deleted by the server
 * (a TTL index on `expires_at`).
 */
export class IdempotencyStore {
  private readonly records: Collection<IdempotencyDoc>;

  constructor(
    db: Db,
    private readonly ttlMs: number,
    private readonly lockMs = 60_000,
  ) {
    this.records = db.collection<IdempotencyDoc>('idempotency_keys');
  }

  async init(): Promise<void> {
    await this.records.createIndex({ expires_at: 1 }, { expireAfterSeconds: 0 });
  }

  async claim(orgId: string, key: string, fingerprint: string, now = new Date()): Promise<ClaimResult> {
    const _id = `${orgId}:${key}`;
    const fresh: IdempotencyDoc = {
      _id,
      fingerprint,
      state: 'running',
      response: null,
      locked_until: new Date(now.getTime() + this.lockMs),
      expires_at: new Date(now.getTime() + this.ttlMs),
    };
    try {
      await this.records.insertOne(fresh);
      return { outcome: 'claimed' };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    const existing = await this.records.findOne({ _id });
    if (!existing || existing.expires_at <= now || (existing.state === 'running' && existing.locked_until <= now)) {
      // Expired, or abandoned by a crashed request: take it over, unless another request just did.
      const taken = await this.records.replaceOne(
        existing ? { _id, expires_at: existing.expires_at, state: existing.state, locked_until: existing.locked_until } : { _id },
        fresh,
        { upsert: !existing },
      );
      return taken.modifiedCount === 1 || taken.upsertedCount === 1 ? { outcome: 'claimed' } : { outcome: 'running' };
    }
    if (existing.fingerprint !== fingerprint) return { outcome: 'mismatch' };
    if (existing.state === 'done' && existing.response) return { outcome: 'replay', response: existing.response };
    return { outcome: 'running' };
  }

  async complete(orgId: string, key: string, response: StoredResponse): Promise<void> {
    await this.records.updateOne({ _id: `${orgId}:${key}` }, { $set: { state: 'done', response } });
  }

  /** Frees the key after a failure that must not be replayed (5xx): the client may retry it. */
  async release(orgId: string, key: string): Promise<void> {
    await this.records.deleteOne({ _id: `${orgId}:${key}`, state: 'running' });
  }
}
