import { isDuplicateKeyError } from '@crm/shared';
import type { Collection, Db } from 'mongodb';

/** One fixed window of one organization: its total and each of its keys' counts. */
interface WindowDoc {
  /** `<org>:<window start ms>` */
  _id: string;
  total: number;
  keys: Record<string, number>;
  expires_at: Date;
}

export interface WindowCounts {
  org: number;
  key: number;
}

/** What the limiter needs from a shared counter; the gateway's database in production, a stub in unit tests. */
export interface RateLimitCounter {
  /** Counts `weight` requests (a batch counts one per item) and answers the window's counts after them. */
  hit(orgId: string, keyId: string, windowStart: number, windowMs: number, weight?: number): Promise<WindowCounts>;
  giveBack(orgId: string, keyId: string, windowStart: number, weight?: number): Promise<void>;
}

/**
 * Fixed-window counters shared by every gateway replica, in the gateway's database. A key belongs to one
 * organization, so one document per organization and window holds both dimensions: one atomic upsert
 * ($inc of the total and of the key's field) counts a request against both in one round trip.
 * The server deletes past windows (a TTL index on `expires_at`).
 */
export class RateLimitStore implements RateLimitCounter {
  private readonly windows: Collection<WindowDoc>;

  constructor(db: Db) {
    this.windows = db.collection<WindowDoc>('rate_limit_windows');
  }

  async init(): Promise<void> {
    await this.windows.createIndex({ expires_at: 1 }, { expireAfterSeconds: 0 });
  }

  async hit(orgId: string, keyId: string, windowStart: number, windowMs: number, weight = 1): Promise<WindowCounts> {
    const update = async () =>
      this.windows.findOneAndUpdate(
        { _id: `${orgId}:${windowStart}` },
        {
          $inc: { total: weight, [`keys.${keyId}`]: weight },
          // Kept one window past its end, so a late replica's give-back finds it.
          $setOnInsert: { expires_at: new Date(windowStart + 2 * windowMs) },
        },
        { upsert: true, returnDocument: 'after', projection: { total: 1, [`keys.${keyId}`]: 1 } },
      );
    // Two first requests of a window may both try the insert; the loser increments the winner's document.
    const doc = await update().catch(async (error: unknown) => {
      if (isDuplicateKeyError(error)) return update();
      throw error;
    });
    return { org: doc?.total ?? weight, key: doc?.keys?.[keyId] ?? weight };
  }

  /** A refused request is not charged: without this, a key hammering past its limit would use up its organization's. */
  async giveBack(orgId: string, keyId: string, windowStart: number, weight = 1): Promise<void> {
    await this.windows.updateOne({ _id: `${orgId}:${windowStart}` }, { $inc: { total: -weight, [`keys.${keyId}`]: -weight } });
  }
}
