import { newId, type PageRequest, RecordStore, type Storage, type StoreFilter, type UpdateOperators } from '@crm/shared';
import { Schema } from 'mongoose';
import type { SecretBox } from '../delivery/secret-box';

export type WebhookStatus = 'active' | 'paused';
/** Why a subscription is paused (docs/security.md, docs/webhooks.md). */
export type PausedReason = 'consecutive_failures' | 'manual' | 'api_key_revoked';

export interface WebhookRecord {
  id: string;
  org_id: string;
  name: string;
  url: string;
  events: string[];
  status: WebhookStatus;
  /** Signs every delivery. Plaintext here; stored sealed by the SecretBox (AES-256-GCM), see delivery/secret-box.ts. */
  secret: string;
  /** The secret the last rotation replaced; it also signs until previous_secret_expires_at. */
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  last_delivery_at: Date | null;
  last_failure_at: Date | null;
  last_failure_reason: string | null;
  /** Null while active. */
  paused_reason: PausedReason | null;
  /** The API key that created the subscription or last changed it: revoking it pauses the subscription. */
  key_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** What a subscription is created with; the rest of a new record is its starting state. */
export type NewWebhook = Pick<WebhookRecord, 'org_id' | 'name' | 'url' | 'events' | 'secret' | 'key_id'>;

/** A new subscription's record: active, never delivered to, no failure, no previous secret. */
export function newWebhookRecord(fields: NewWebhook, now: Date): WebhookRecord {
  return {
    id: newId('webhook'),
    ...fields,
    status: 'active',
    previous_secret: null,
    previous_secret_expires_at: null,
    consecutive_failures: 0,
    last_delivery_at: null,
    last_failure_at: null,
    last_failure_reason: null,
    paused_reason: null,
    created_at: now,
    updated_at: now,
  };
}

/** A stored webhook: its secrets sealed. */
type WebhookDoc = Omit<WebhookRecord, 'id'> & { _id: string };

const webhookSchema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    status: { type: String, required: true, enum: ['active', 'paused'] },
    secret: { type: String, required: true },
    previous_secret: { type: String, default: null },
    previous_secret_expires_at: { type: Date, default: null },
    consecutive_failures: { type: Number, default: 0 },
    last_delivery_at: { type: Date, default: null },
    last_failure_at: { type: Date, default: null },
    last_failure_reason: { type: String, default: null },
    paused_reason: { type: String, default: null },
    key_id: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'webhooks', minimize: false },
);
// The list, and the consumer's lookup of an organization's active subscriptions.
webhookSchema.index({ org_id: 1, created_at: -1, _id: -1 });
webhookSchema.index({ org_id: 1, status: 1 });
// The sweep that pauses the subscriptions of revoked keys.
webhookSchema.index({ status: 1, key_id: 1 });

/**
 * What a flush of attempts did to one subscription's monitoring fields: `reset` when one succeeded (the count
 * becomes the failures after the last success), otherwise `failures` more in a row.
 */
export interface HealthChange {
  orgId: string;
  id: string;
  reset: boolean;
  failures: number;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  lastFailureReason: string | null;
}

export interface WebhookQuery extends PageRequest {
  status?: WebhookStatus | null;
}

export type WebhookRepository = ReturnType<typeof createWebhookRepository>;

/** The secrets leave and enter the store only through `box`: rows hold them sealed, records in plaintext. */
export function createWebhookRepository(storage: Storage, box: SecretBox) {
  const webhooks = new RecordStore<WebhookRecord>(storage, {
    model: 'Webhook',
    schema: webhookSchema,
    what: 'webhook',
    fromStored: (record) => ({
      ...record,
      secret: box.open(record.secret, record.id),
      previous_secret: record.previous_secret === null ? null : box.open(record.previous_secret, record.id),
    }),
  });
  const Webhook = webhooks.model;
  const byId = (orgId: string, id: string) => ({ _id: id, org_id: orgId });
  const sealed = <T extends { secret?: string; previous_secret?: string | null }>(id: string, fields: T): T => ({
    ...fields,
    ...(fields.secret !== undefined ? { secret: box.seal(fields.secret, id) } : {}),
    ...(typeof fields.previous_secret === 'string' ? { previous_secret: box.seal(fields.previous_secret, id) } : {}),
  });

  return {
    async insert(record: WebhookRecord): Promise<void> {
      await webhooks.insert({ ...record, ...sealed(record.id, record) });
    },

    getById: (orgId: string, id: string) => webhooks.findOne(byId(orgId, id)),

    count: (orgId: string) => webhooks.count({ org_id: orgId }),

    list(orgId: string, query: WebhookQuery) {
      const conditions: StoreFilter[] = [{ org_id: orgId }];
      if (query.status) conditions.push({ status: query.status });
      return webhooks.listPage(conditions, { field: 'created_at', order: 'desc', type: 'date' }, query);
    },

    /** The subscriptions events of these organizations may go to (one query per batch); the caller matches kinds. */
    listActive: (orgIds: string[]) =>
      orgIds.length === 0 ? Promise.resolve([]) : webhooks.findMany({ org_id: { $in: orgIds }, status: 'active' }),

    update: (orgId: string, id: string, set: Partial<Omit<WebhookRecord, 'id' | 'org_id'>>) =>
      webhooks.update(byId(orgId, id), sealed(id, set)),

    async delete(orgId: string, id: string): Promise<boolean> {
      const result = await Webhook.deleteOne(byId(orgId, id));
      return result.deletedCount > 0;
    },

    /**
     * The monitoring fields after a flush of attempts (see HealthChange), in one round trip for the subscriptions
     * that only succeeded. Those with failures are updated one by one and returned with their new failure count,
     * for the pause rule. Failures are added with $inc, not read-modify-write: other replicas' attempts count too.
     */
    async applyHealth(changes: HealthChange[]): Promise<WebhookRecord[]> {
      const update = (change: HealthChange): UpdateOperators => {
        const set: Record<string, unknown> = {};
        if (change.lastSuccessAt) set.last_delivery_at = change.lastSuccessAt;
        if (change.lastFailureAt)
          Object.assign(set, { last_failure_at: change.lastFailureAt, last_failure_reason: change.lastFailureReason });
        if (change.reset) set.consecutive_failures = change.failures;
        return change.reset || change.failures === 0 ? { $set: set } : { $set: set, $inc: { consecutive_failures: change.failures } };
      };
      const quiet = changes.filter((change) => change.failures === 0);
      if (quiet.length > 0)
        await webhooks.collection.bulkWrite(
          quiet.map((change) => ({ updateOne: { filter: byId(change.orgId, change.id), update: update(change) } })) as never,
          { ordered: false },
        );
      const failing = await Promise.all(
        changes.filter((change) => change.failures > 0).map((change) => webhooks.update(byId(change.orgId, change.id), update(change))),
      );
      return failing.flatMap((record) => (record ? [record] : []));
    },

    /**
     * Seals what is stored in plaintext (rows of before encryption) or under an old key, so an old key can be retired
     * after every replica started once with the new one. Each write is conditional on the values read: a rotation
     * made meanwhile (or another replica's pass) wins. Rows that do not open are left and reported.
     */
    async sealStoredSecrets(): Promise<{ sealed: number; unreadable: string[] }> {
      const rows = await Webhook.find({}, { secret: 1, previous_secret: 1 }).lean<
        Pick<WebhookDoc, '_id' | 'secret' | 'previous_secret'>[]
      >();
      let count = 0;
      const unreadable: string[] = [];
      for (const row of rows) {
        const stale = !box.isCurrent(row.secret) || (row.previous_secret !== null && !box.isCurrent(row.previous_secret));
        if (!stale) continue;
        let set: { secret: string; previous_secret: string | null };
        try {
          set = sealed(row._id, {
            secret: box.open(row.secret, row._id),
            previous_secret: row.previous_secret === null ? null : box.open(row.previous_secret, row._id),
          });
        } catch {
          unreadable.push(row._id);
          continue;
        }
        const result = await Webhook.updateOne({ _id: row._id, secret: row.secret, previous_secret: row.previous_secret }, { $set: set });
        count += result.modifiedCount;
      }
      return { sealed: count, unreadable };
    },

    /** Conditional on `active`, so a pause never overwrites a reactivation that happened meanwhile with stale state. */
    async pauseIfActive(orgId: string, id: string, at: Date, reason: PausedReason): Promise<boolean> {
      const result = await Webhook.updateOne(
        { ...byId(orgId, id), status: 'active' },
        { $set: { status: 'paused', paused_reason: reason, updated_at: at } },
      );
      return result.modifiedCount > 0;
    },

    /** The keys answerable for active subscriptions, over every organization (the revoked-key sweep). */
    async activeKeyIds(): Promise<string[]> {
      const rows = await Webhook.find({ status: 'active', key_id: { $ne: null } }, { key_id: 1 }).lean<{ key_id: string }[]>();
      return [...new Set(rows.map((row) => row.key_id))];
    },

    /** The active subscriptions these keys answer for. */
    async activeOfKeys(keyIds: string[]): Promise<Array<{ id: string; org_id: string }>> {
      const rows = await Webhook.find({ status: 'active', key_id: { $in: keyIds } }, { org_id: 1 }).lean<
        { _id: string; org_id: string }[]
      >();
      return rows.map((row) => ({ id: row._id, org_id: row.org_id }));
    },
  };
}
