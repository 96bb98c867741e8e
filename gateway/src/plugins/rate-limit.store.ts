import { isDuplicateKeyError } from '@crm/shared/mongo-driver';
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

/**
 * What the limiter needs from a counter: the gateway's database in production (shared by the replicas), the
 * in-memory fallback while it fails, a stub in unit tests. `cost` is the request's weight (route-costs.ts).
 */
export interface RateLimitCounter {
  hit(orgId: string, keyId: string, windowStart: number, windowMs: number, cost: number): Promise<WindowCounts>;
  giveBack(orgId: string, keyId: string, windowStart: number, cost: number): Promise<void>;
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

  async hit(orgId: string, keyId: string, windowStart: number, windowMs: number, cost: number): Promise<WindowCounts> {
    const update = async () =>
      this.windows.findOneAndUpdate(
        { _id: `${orgId}:${windowStart}` },
        {
          $inc: { total: cost, [`keys.${keyId}`]: cost },
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
    return { org: doc?.total ?? cost, key: doc?.keys?.[keyId] ?? cost };
  }

  /** A refused request is not charged: without this, a key hammering past its limit would use up its organization's. */
  async giveBack(orgId: string, keyId: string, windowStart: number, cost: number): Promise<void> {
    await this.windows.updateOne({ _id: `${orgId}:${windowStart}` }, { $inc: { total: -cost, [`keys.${keyId}`]: -cost } });
  }
}

/**
 * The same fixed windows in this process's memory: what the limiter counts with while the shared store fails or
 * is slow, so an outage of the store loosens the limits (each replica counts alone) instead of switching them off.
 */
export class LocalWindowCounter implements RateLimitCounter {
  private readonly windows = new Map<string, { total: number; keys: Map<string, number> }>();
  private windowStart = 0;

  async hit(orgId: string, keyId: string, windowStart: number, _windowMs: number, cost: number): Promise<WindowCounts> {
    // Only the current window is ever asked for: an older one is dropped whole.
    if (windowStart !== this.windowStart) {
      this.windows.clear();
      this.windowStart = windowStart;
    }
    let window = this.windows.get(orgId);
    if (!window) {
      window = { total: 0, keys: new Map() };
      this.windows.set(orgId, window);
    }
    window.total += cost;
    const key = (window.keys.get(keyId) ?? 0) + cost;
    window.keys.set(keyId, key);
    return { org: window.total, key };
  }

  async giveBack(orgId: string, keyId: string, windowStart: number, cost: number): Promise<void> {
    const window = windowStart === this.windowStart ? this.windows.get(orgId) : undefined;
    if (!window) return;
    window.total -= cost;
    window.keys.set(keyId, (window.keys.get(keyId) ?? cost) - cost);
  }
}
