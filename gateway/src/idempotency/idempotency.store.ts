import { CoalescedCommands, isDuplicateKeyError } from '@crm/shared/mongo-driver';
import type { Collection, Db } from 'mongodb';

export interface StoredResponse {
  status: number;
  body: unknown;
}

interface IdempotencyDoc {
  /** `<org>:<key>`: one record per key and organization. */
  _id: string;
  org_id: string;
  /** A refusal (4xx) is stored: kept `errorTtlMs` only, and counted against the organization's cap. */
  error?: true;
  fingerprint: string;
  state: 'running' | 'done';
  response: StoredResponse | null;
  /** A running request whose lock expired (a crashed gateway) may be taken over. */
  locked_until: Date;
  expires_at: Date;
}

export type ClaimResult =
  { outcome: 'claimed' } | { outcome: 'replay'; response: StoredResponse } | { outcome: 'mismatch' } | { outcome: 'running' };

export interface IdempotencyLimits {
  /** How long a stored success is replayed. */
  ttlMs: number;
  /** How long a stored refusal (4xx) is replayed: shorter, since a refusal costs nothing to compute again. */
  errorTtlMs: number;
  /**
   * Live refusals stored per organization. Beyond it a refusal is not stored (its key is freed, as after a 5xx),
   * so one tenant sending bad requests under fresh keys cannot grow the store without bound; successes are always
   * stored, since replaying them is what keeps a retried write from running twice.
   */
  maxErrorsPerOrganization: number;
  lockMs?: number;
}

/**
 * Idempotency records in the gateway's own database. The claim is an insert on a unique _id, so two concurrent
 * requests with one key cannot both execute. Expired records are ignored at once and deleted by the server
 * (a TTL index on `expires_at`).
 */
export class IdempotencyStore {
  private readonly records: Collection<IdempotencyDoc>;
  /** Claims and completions of concurrent requests go to the server as one command each (coalesced-commands.ts). */
  private readonly coalesced: CoalescedCommands;
  private readonly ttlMs: number;
  private readonly lockMs: number;

  constructor(
    db: Db,
    private readonly limits: IdempotencyLimits,
  ) {
    this.records = db.collection<IdempotencyDoc>('idempotency_keys');
    this.coalesced = new CoalescedCommands(this.records as unknown as Collection);
    this.ttlMs = limits.ttlMs;
    this.lockMs = limits.lockMs ?? 60_000;
  }

  async init(): Promise<void> {
    await this.records.createIndex({ expires_at: 1 }, { expireAfterSeconds: 0 });
    // The count of an organization's live refusals (the cap).
    await this.records.createIndex({ org_id: 1, error: 1, expires_at: 1 });
  }

  async claim(orgId: string, key: string, fingerprint: string, now = new Date()): Promise<ClaimResult> {
    const _id = `${orgId}:${key}`;
    const fresh: IdempotencyDoc = {
      _id,
      org_id: orgId,
      fingerprint,
      state: 'running',
      response: null,
      locked_until: new Date(now.getTime() + this.lockMs),
      expires_at: new Date(now.getTime() + this.ttlMs),
    };
    try {
      await this.coalesced.insert(fresh);
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

  async complete(orgId: string, key: string, response: StoredResponse, now = new Date()): Promise<void> {
    const _id = `${orgId}:${key}`;
    if (response.status < 400) {
      await this.coalesced.updateOne({ _id }, { $set: { state: 'done', response } });
      return;
    }
    const { maxErrorsPerOrganization: cap, errorTtlMs } = this.limits;
    const live = await this.records.countDocuments({ org_id: orgId, error: true, expires_at: { $gt: now } }, { limit: cap });
    if (live >= cap) return this.release(orgId, key);
    await this.records.updateOne(
      { _id },
      {
        $set: {
          state: 'done',
          response,
          error: true,
          expires_at: new Date(now.getTime() + Math.min(errorTtlMs, this.ttlMs)),
        },
      },
    );
  }

  /** Frees the key after a failure that must not be replayed (5xx), or a refusal over the cap: the client may retry it. */
  async release(orgId: string, key: string): Promise<void> {
    await this.records.deleteOne({ _id: `${orgId}:${key}`, state: 'running' });
  }
}
