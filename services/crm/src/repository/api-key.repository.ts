import { RecordStore, type PageRequest, type Storage } from '@crm/shared';
import { Schema } from 'mongoose';

export interface ApiKeyRecord {
  id: string;
  org_id: string;
  name: string;
  /** SHA-256 hex of the full key; the key itself is never stored. */
  hash: string;
  prefix: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const apiKeySchema = new Schema(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    hash: { type: String, required: true },
    prefix: { type: String, required: true },
    scopes: { type: [String], required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, default: null },
    revoked_at: { type: Date, default: null },
    last_used_at: { type: Date, default: null },
  },
  { versionKey: false, collection: 'api_keys' },
);
apiKeySchema.index({ hash: 1 }, { unique: true });
apiKeySchema.index({ org_id: 1, created_at: -1 });

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;

export function createApiKeyRepository(storage: Storage) {
  const keys = new RecordStore<ApiKeyRecord>(storage, { model: 'ApiKey', schema: apiKeySchema, what: 'API key' });
  return {
    insert: (record: ApiKeyRecord) => keys.insert(record),
    findByHash: (hash: string) => keys.findOne({ hash }),
    getById: (orgId: string, id: string) => keys.findOne({ _id: id, org_id: orgId }),
    /** The organization's keys, newest first, revoked and expired ones included. */
    listPage: (orgId: string, page: PageRequest) =>
      keys.listPage([{ org_id: orgId }], { field: 'created_at', order: 'desc', type: 'date' }, page),
    count: (orgId: string) => keys.count({ org_id: orgId }),
    /** Of these ids, the keys that still authenticate at `now` (neither revoked nor expired). */
    async activeIds(ids: string[], now: Date): Promise<string[]> {
      const rows = await keys.model
        .find({ _id: { $in: ids }, revoked_at: null, $or: [{ expires_at: null }, { expires_at: { $gt: now } }] }, { _id: 1 })
        .lean<{ _id: string }[]>();
      return rows.map((row) => row._id);
    },
    countActive: (orgId: string) => keys.count({ org_id: orgId, revoked_at: null }),
    /** Returns false when the key does not exist in the organization or was already revoked. */
    revoke: async (orgId: string, id: string, at: Date): Promise<boolean> =>
      (await keys.update({ _id: id, org_id: orgId, revoked_at: null }, { revoked_at: at })) !== null,
    async touch(id: string, at: Date): Promise<void> {
      await keys.model.updateOne({ _id: id }, { $set: { last_used_at: at } });
    },
  };
}
