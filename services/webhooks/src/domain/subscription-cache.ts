import type { WebhookRecord, WebhookRepository } from '../repository/webhook.repository';

interface Entry {
  record: WebhookRecord | null;
  readAt: number;
  reading?: Promise<WebhookRecord | null>;
}

/**
 * The subscriptions the delivery worker sends to, read at most once per `maxAgeMs` each (one read per second per
 * busy endpoint instead of one per attempt). So a pause, a new URL or a rotated secret made through another
 * replica reaches this one's attempts within that time; this replica's own changes at once (`forget`).
 */
export class SubscriptionCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly maxAgeMs = 1_000,
    private readonly maxEntries = 10_000,
  ) {}

  /** Records just read elsewhere (the fan-out's), fresh as of now. */
  prime(records: WebhookRecord[]): void {
    const now = Date.now();
    for (const record of records) this.put(record.id, { record, readAt: now });
  }

  /** The subscription as of at most `maxAgeMs` ago; null when it no longer exists. */
  async get(orgId: string, id: string): Promise<WebhookRecord | null> {
    const entry = this.entries.get(id);
    if (entry && Date.now() - entry.readAt <= this.maxAgeMs) return entry.record;
    if (entry?.reading) return entry.reading;
    const reading = this.webhooks.getById(orgId, id);
    this.put(id, { record: entry?.record ?? null, readAt: entry?.readAt ?? 0, reading });
    try {
      const record = await reading;
      this.put(id, { record, readAt: Date.now() });
      return record;
    } catch (error) {
      this.entries.delete(id);
      throw error;
    }
  }

  forget(id: string): void {
    this.entries.delete(id);
  }

  private put(id: string, entry: Entry): void {
    this.entries.delete(id);
    this.entries.set(id, entry);
    // Oldest first in a Map: drop the least recently written.
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }
}
